import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnServer, type ChildServer } from "../testing/child-server.ts";
import { RunAnswerSchema, removeDir, tempDir, waitFor, type RunAnswer } from "../testing/test-server.ts";
import { StartedRunSchema } from "../testing/answers.ts";
import { startOtlpReceiver, type OtlpReceiver } from "../testing/otlp-receiver.ts";
import { startHeaderRecordingMcpServer } from "../testing/header-recording-mcp-server.ts";
import { oneNodeWorkflow } from "../testing/one-node-workflow.ts";
import { byName, spanLines, traceOf } from "../testing/traces.ts";
import { until } from "../testing/until.ts";
import { hookWorkflow } from "../testing/webhooks.ts";
import { TEST_TOKEN } from "../testing/http-call.ts";
import type { ReceivedSpan } from "../testing/otlp-receiver.ts";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

/** A caller's trace: a fresh trace id and span id each time, as a traced client sends them. */
function callerTrace(): { traceId: string; spanId: string; traceparent: string } {
  const hex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** Headers that are not a valid traceparent: the W3C propagator must refuse each, and the request must still work. */
const MALFORMED = ["not-a-traceparent", "00-00000000000000000000000000000000-0000000000000000-01", "00-abc-def-01", `ff-${"a".repeat(32)}-${"b".repeat(16)}-01`];

/** The first `invoke_agent` span of an agent's conversation in the trace `traceId`. */
function agentStepIn(receiver: OtlpReceiver, traceId: string): ReceivedSpan | undefined {
  return receiver.spans().find((s) => s.traceId === traceId && s.name.startsWith("invoke_agent "));
}

async function ended(api: ChildServer, runId: string): Promise<RunAnswer> {
  return waitFor(
    async () => {
      const answer = RunAnswerSchema.safeParse((await api.call("GET", `/api/runs/${runId}`)).body);
      return answer.success && !["queued", "running"].includes(answer.data.run.status) ? answer.data : undefined;
    },
    120_000,
    `run ${runId} to end`,
  );
}

describe("trace context across MCP calls and scene steps (tracing on, the demo LLM)", () => {
  let receiver: OtlpReceiver;
  let mcp: Awaited<ReturnType<typeof startHeaderRecordingMcpServer>>;
  let dataDir: string;
  let api: ChildServer;

  beforeAll(async () => {
    receiver = startOtlpReceiver();
    mcp = await startHeaderRecordingMcpServer();
    dataDir = tempDir("weft-otel-propagation-");
    api = await spawnServer(dataDir, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100" });
  }, 120_000);

  afterAll(async () => {
    api?.proc.kill("SIGKILL");
    await api?.proc.exited;
    await mcp?.stop();
    await receiver?.stop();
    removeDir(dataDir);
  });

  it("an MCP tool call over Streamable HTTP carries the run's traceparent: the server receives the run's trace id and the node's span as parent", async () => {
    const put = await api.call("PUT", "/api/settings/mcp", { mcpServers: { traced: { url: mcp.url } } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ status: { traced: { state: "ready", transport: "http" } } });
    expect((await api.call("POST", "/api/workflows", { workflow: oneNodeWorkflow("mcp-ping", "mcp:traced.ping", {}) })).status).toBe(201);
    const started = await api.call("POST", "/api/workflows/mcp-ping/runs", {});
    expect(started.status).toBe(202);
    const runId = StartedRunSchema.parse(started.body).runId;
    const run = await ended(api, runId);
    expect(run.run.status).toBe("completed");
    expect(run.run.outputs).toMatchObject({ result: { content: [{ type: "text", text: "pong" }] } });

    const spans = await traceOf(receiver, runId, 3);
    const calls = mcp.received.filter((r) => r.method === "tools/call");
    expect(calls).toHaveLength(1);
    const [, traceId, parentId] = TRACEPARENT.exec(String(calls[0].headers.traceparent ?? "")) ?? [];
    expect(traceId).toBe(byName(spans, "run mcp-ping").traceId);
    expect(parentId).toBe(byName(spans, "node call").spanId);
  }, 180_000);

  it("a scene step is a span (the root of its trace) with the agent's invoke_agent spans as its children", async () => {
    expect((await api.call("POST", "/api/scenes/notice-board/start")).status).toBe(200);
    const sent = await api.call("POST", "/api/scenes/notice-board/messages", { to: "scribe", text: 'Post the note "The bridge is open"' });
    expect(sent.status).toBe(202);

    const name = "scene step Notice board (two cooperating agents)";
    const found = await until("a scene step of each agent with its agent steps under it", () => {
      const all = receiver.spans();
      const steps = all.filter((s) => s.name === name);
      const of = (agent: string) => {
        const step = steps.find((s) => s.attributes["gen_ai.agent.id"] === agent);
        const children = step ? all.filter((s) => s.parentSpanId === step.spanId && s.name.startsWith("invoke_agent ")) : [];
        return step && children.length > 0 ? { step, children } : undefined;
      };
      const scribe = of("scribe");
      const herald = of("herald");
      return scribe && herald ? { scribe, herald } : undefined;
    }).catch((error: unknown) => {
      throw new Error(`${String(error)}; spans: ${spanLines(receiver)}`);
    });
    for (const { step, children } of [found.scribe, found.herald]) {
      expect(step.parentSpanId).toBe("");
      expect(step.attributes).toMatchObject({ "weft.scene.id": "notice-board", "weft.trigger.kind": expect.any(String) });
      for (const child of children) {
        expect(child.traceId).toBe(step.traceId);
        expect(child.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent" });
      }
    }
    expect(found.scribe.step.traceId).not.toBe(found.herald.step.traceId);
    expect(found.scribe.children[0].name).toBe("invoke_agent Scribe (scene: posts notes)");
    expect(found.herald.children[0].name).toBe("invoke_agent Herald (scene: reads the board)");
    await api.call("POST", "/api/scenes/notice-board/stop");
  }, 180_000);
});

describe("a run or conversation started with a caller's traceparent joins the caller's trace (tracing on, the demo LLM)", () => {
  let receiver: OtlpReceiver;
  let dataDir: string;
  let api: ChildServer;
  const auth = { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" };

  beforeAll(async () => {
    receiver = startOtlpReceiver();
    dataDir = tempDir("weft-otel-caller-");
    api = await spawnServer(dataDir, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100" });
    const workflow = { id: "hello", name: "Hello", nodes: [{ id: "t", type: "core:text-template", config: { template: "hi" } }], edges: [] };
    expect((await api.call("POST", "/api/workflows", { workflow })).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    api?.proc.kill("SIGKILL");
    await api?.proc.exited;
    await receiver?.stop();
    removeDir(dataDir);
  });

  const startRun = async (headers: Record<string, string>) => {
    const res = await fetch(`${api.url}/api/workflows/hello/runs`, { method: "POST", headers: { ...auth, ...headers }, body: "{}" });
    expect(res.status).toBe(202);
    const runId = StartedRunSchema.parse(await res.json()).runId;
    expect((await ended(api, runId)).run.status).toBe("completed");
    return runId;
  };

  it("POST /api/workflows/:id/runs with a traceparent: the run's root span is the caller span's child, in the caller's trace", async () => {
    const caller = callerTrace();
    const runId = await startRun({ traceparent: caller.traceparent, tracestate: "vendor=1" });
    const spans = await traceOf(receiver, runId, 2, caller.spanId);
    const run = byName(spans, "run Hello");
    expect(run.traceId).toBe(caller.traceId);
    expect(byName(spans, "node t").parentSpanId).toBe(run.spanId);
  }, 180_000);

  it("a malformed traceparent is ignored: the run starts (202) and is the root of a trace of its own", async () => {
    for (const traceparent of MALFORMED) {
      const runId = await startRun({ traceparent });
      const run = byName(await traceOf(receiver, runId, 2), "run Hello");
      expect(run.parentSpanId).toBe("");
      expect(traceparent).not.toContain(run.traceId);
    }
  }, 180_000);

  it("a webhook request with a traceparent: the run it starts joins the sender's trace", async () => {
    expect((await api.call("POST", "/api/workflows", { workflow: hookWorkflow("hooked", { path: "in", auth: "token", response: "wait" }) })).status).toBe(201);
    const activated = await api.call("PUT", "/api/workflows/hooked/active", { active: true });
    const secret = String((activated.body as { secrets: { secret: string }[] }).secrets[0]?.secret);
    const caller = callerTrace();
    const res = await fetch(`${api.url}/hooks/hooked/in`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", traceparent: caller.traceparent },
      body: '{"name":"Ada"}',
    });
    expect(res.status).toBe(200);
    const run = await until("the hook's run span in the sender's trace", () => receiver.spans().find((s) => s.traceId === caller.traceId && s.name === "run Hook hooked"));
    expect(run.parentSpanId).toBe(caller.spanId);
    // A malformed one is ignored: the hook still answers.
    const again = await fetch(`${api.url}/hooks/hooked/in`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", traceparent: MALFORMED[2] },
      body: '{"name":"Bo"}',
    });
    expect(again.status).toBe(200);
  }, 180_000);

  it("an agent conversation started through /v1/chat/completions, through A2A and through POST /api/agents/:id/messages joins the caller's trace", async () => {
    const viaOpenAi = callerTrace();
    const completion = await fetch(`${api.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...auth, traceparent: viaOpenAi.traceparent },
      body: JSON.stringify({ model: "text-helper", messages: [{ role: "user", content: "Please uppercase this text: hello weft" }] }),
    });
    expect(completion.status).toBe(200);
    const viaA2a = callerTrace();
    const a2a = await fetch(`${api.url}/a2a/text-helper`, {
      method: "POST",
      headers: { ...auth, traceparent: viaA2a.traceparent },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "message/send",
        params: { message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text: "Please uppercase this text: hi" }] } },
      }),
    });
    expect(a2a.status).toBe(200);
    const viaApi = callerTrace();
    const sent = await fetch(`${api.url}/api/agents/text-helper/messages`, {
      method: "POST",
      headers: { ...auth, traceparent: viaApi.traceparent },
      body: JSON.stringify({ message: "Please uppercase this text: yo" }),
    });
    expect(sent.status).toBe(202);
    for (const caller of [viaOpenAi, viaA2a, viaApi]) {
      const step = await until(`an agent step in trace ${caller.traceId}`, () => agentStepIn(receiver, caller.traceId)).catch((error: unknown) => {
        throw new Error(`${String(error)}; spans: ${spanLines(receiver)}`);
      });
      expect(step.parentSpanId).toBe(caller.spanId);
      expect(step.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "weft.agent.id": "text-helper" });
    }
  }, 240_000);
});
