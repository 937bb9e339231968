import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnServer, type ChildServer } from "../testing/child-server.ts";
import { RunAnswerSchema, removeDir, tempDir, waitFor, type RunAnswer } from "../testing/test-server.ts";
import { StartedRunSchema } from "../testing/answers.ts";
import { startOtlpReceiver, type OtlpReceiver } from "../testing/otlp-receiver.ts";
import { startHeaderRecordingMcpServer } from "../testing/header-recording-mcp-server.ts";
import { oneNodeWorkflow } from "../testing/one-node-workflow.ts";
import { byName, spanLines, traceOf } from "../testing/traces.ts";
import { until } from "../testing/until.ts";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

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
