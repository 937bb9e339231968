import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { spawnServer, type ChildServer } from "../testing/child-server.ts";
import { RunAnswerSchema, removeDir, tempDir, waitFor, type RunAnswer } from "../testing/test-server.ts";
import { ProfileIdAnswerSchema, StartedRunSchema } from "../testing/answers.ts";
import { startOtlpReceiver, type OtlpReceiver } from "../testing/otlp-receiver.ts";
import { byName, spanLines, traceOf } from "../testing/traces.ts";
import { until } from "../testing/until.ts";

const PROFILE_KEY = "sk-live-profile-key-4f9a8b7c6d5e";
const CREDENTIAL = "cred-secret-token-9z8y7x6w5v4u";
const USAGE = { prompt_tokens: 321, completion_tokens: 54 };

/** A local HTTP target that records each request's headers and echoes the Authorization header back in its body. */
async function startTarget(): Promise<{ origin: string; headers: IncomingHttpHeaders[]; server: Server }> {
  const headers: IncomingHttpHeaders[] = [];
  const server = createHttpServer((req, res) => {
    headers.push(req.headers);
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(`you sent ${req.headers.authorization ?? "nothing"}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, headers, server };
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

async function startRun(api: ChildServer, workflowId: string): Promise<string> {
  const started = await api.call("POST", `/api/workflows/${workflowId}/runs`, {});
  expect(started.status).toBe(202);
  return StartedRunSchema.parse(started.body).runId;
}

describe("OpenTelemetry traces (tracing on: OTLP endpoint set)", () => {
  let receiver: OtlpReceiver;
  let llm: ScriptedLlmServer;
  let target: Awaited<ReturnType<typeof startTarget>>;
  let dataDir: string;
  let api: ChildServer;
  let profileId: string;

  beforeAll(async () => {
    receiver = startOtlpReceiver();
    llm = await startScriptedLlmServer();
    target = await startTarget();
    dataDir = tempDir("weft-otel-");
    api = await spawnServer(dataDir, {
      WEFT_DEMO_LLM: "off",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: "100",
      WEFT_OTEL_CAPTURE_CONTENT: "true",
    });
    const profile = await api.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, apiKey: PROFILE_KEY, maxRetries: 0 });
    expect(profile.status).toBe(201);
    profileId = ProfileIdAnswerSchema.parse(profile.body).profile.id;
  }, 120_000);

  afterAll(async () => {
    api?.proc.kill("SIGKILL");
    await api?.proc.exited;
    await llm?.stop();
    await receiver?.stop();
    target?.server.close();
    removeDir(dataDir);
  });

  it("a run is one trace: `run <workflow>` at the root, a span per node, the LLM call under its node with the GenAI attributes and the exact tokens", async () => {
    llm.enqueue({ kind: "text", chunks: ["Queues hold work."], usage: USAGE });
    const workflow = {
      id: "ask",
      name: "Ask",
      nodes: [
        { id: "llm", type: "llm:chat", config: { profileId }, inputs: { prompt: "What is a queue?" } },
        { id: "fill", type: "core:text-template", config: { template: "Summary: {{0}}" } },
      ],
      edges: [{ id: "e1", source: "llm", sourceHandle: "text", target: "fill", targetHandle: "values" }],
    };
    expect((await api.call("POST", "/api/workflows", { workflow })).status).toBe(201);
    const runId = await startRun(api, "ask");
    expect((await ended(api, runId)).run.status).toBe("completed");

    const spans = await traceOf(receiver, runId, 4);
    const root = byName(spans, "run Ask");
    expect(root.attributes).toMatchObject({ "weft.run.id": runId, "weft.workflow.id": "ask", "weft.status": "completed" });
    const llmNode = byName(spans, "node llm");
    const fillNode = byName(spans, "node fill");
    expect(llmNode.parentSpanId).toBe(root.spanId);
    expect(fillNode.parentSpanId).toBe(root.spanId);
    expect(llmNode.attributes).toMatchObject({ "weft.run.id": runId, "weft.node.id": "llm", "weft.node.type": "llm:chat", "weft.cached": false });
    const chat = byName(spans, `chat ${llm.model}`);
    expect(chat.parentSpanId).toBe(llmNode.spanId);
    expect(chat.kind).toBe(3); // SPAN_KIND_CLIENT
    expect(chat.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": llm.model,
      "gen_ai.response.model": llm.model,
      "gen_ai.usage.input_tokens": 321,
      "gen_ai.usage.output_tokens": 54,
      "weft.run.id": runId,
      "weft.node.id": "llm",
      "weft.llm.profile.id": profileId,
    });

    // A second run of the same workflow is a trace of its own.
    llm.enqueue({ kind: "text", chunks: ["Again."], usage: USAGE });
    const second = await startRun(api, "ask");
    expect((await ended(api, second)).run.status).toBe("completed");
    const secondSpans = await traceOf(receiver, second, 4);
    expect(secondSpans[0].traceId).not.toBe(root.traceId);
    expect(new Set(secondSpans.map((s) => s.traceId)).size).toBe(1);
    expect(receiver.rejected()).toEqual([]);
  }, 180_000);

  it("a skill inside a workflow is a child span in the same trace: run → skill node → the skill's run → its nodes", async () => {
    const inner = {
      id: "greet",
      name: "Greet",
      nodes: [
        { id: "hello", type: "core:text-template", config: { template: "hello" } },
        { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
      ],
      edges: [{ id: "e1", source: "hello", sourceHandle: "text", target: "out", targetHandle: "value" }],
    };
    const outer = { id: "outer", name: "Outer", nodes: [{ id: "call", type: "core:skill", config: { workflowId: "greet" }, inputs: {} }], edges: [] };
    expect((await api.call("POST", "/api/workflows", { workflow: inner })).status).toBe(201);
    expect((await api.call("POST", "/api/workflows", { workflow: outer })).status).toBe(201);
    const runId = await startRun(api, "outer");
    expect((await ended(api, runId)).run.status).toBe("completed");

    const spans = await traceOf(receiver, runId, 5);
    const root = byName(spans, "run Outer");
    const skillNode = byName(spans, "node call");
    const skillRun = byName(spans, "run Greet");
    const hello = byName(spans, "node call/hello");
    expect(skillNode.parentSpanId).toBe(root.spanId);
    expect(skillRun.parentSpanId).toBe(skillNode.spanId);
    expect(skillRun.attributes).toMatchObject({ "weft.run.id": runId, "weft.workflow.id": "greet" });
    expect(hello.parentSpanId).toBe(skillRun.spanId);
    expect(byName(spans, "node call/out").parentSpanId).toBe(skillRun.spanId);
  }, 180_000);

  it("http:request sends the run's traceparent; no credential or API key reaches any attribute, event or name, even with contents captured", async () => {
    expect((await api.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [{ action: "allow", tool: "http.request", target: `${target.origin}/**` }] })).status).toBe(200);
    const created = await api.call("POST", "/api/credentials", { name: "target-api", kind: "bearer", secret: CREDENTIAL, hosts: [target.origin] });
    expect(created.status).toBe(201);
    // The model repeats the profile's key: a completion is recorded (WEFT_OTEL_CAPTURE_CONTENT) and must not carry it.
    llm.enqueue({ kind: "text", chunks: [`The key you gave me is ${PROFILE_KEY}.`], usage: USAGE });
    const workflow = {
      id: "call-target",
      name: "Call target",
      nodes: [
        { id: "req", type: "http:request", inputs: { url: `${target.origin}/me`, credential: "target-api" } },
        // The target echoes the credential; its body becomes the prompt, recorded as the LLM span's input.
        { id: "llm", type: "llm:chat", config: { profileId } },
      ],
      edges: [{ id: "e1", source: "req", sourceHandle: "body", target: "llm", targetHandle: "prompt" }],
    };
    expect((await api.call("POST", "/api/workflows", { workflow })).status).toBe(201);
    const runId = await startRun(api, "call-target");
    expect((await ended(api, runId)).run.status).toBe("completed");
    const spans = await traceOf(receiver, runId, 4);

    expect(target.headers).toHaveLength(1);
    const traceparent = String(target.headers[0].traceparent ?? "");
    const [, traceId, parentId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(traceparent) ?? [];
    expect(traceId).toBe(byName(spans, "run Call target").traceId);
    expect(parentId).toBe(byName(spans, "node req").spanId);
    expect(target.headers[0].authorization).toBe(`Bearer ${CREDENTIAL}`);

    // Contents were captured (so the secrets were there to leak), and redacted.
    const chat = byName(spans, `chat ${llm.model}`);
    expect(String(chat.attributes["gen_ai.input.messages"])).toContain("you sent Bearer [redacted:");
    expect(String(chat.attributes["gen_ai.output.messages"])).toContain("The key you gave me is [redacted:");
    const everything = JSON.stringify(receiver.spans());
    expect(everything).not.toContain(CREDENTIAL);
    expect(everything).not.toContain(PROFILE_KEY);
  }, 180_000);
});

describe("OpenTelemetry traces of an agent (tracing on)", () => {
  let receiver: OtlpReceiver;
  let llm: ScriptedLlmServer;
  let dataDir: string;
  let api: ChildServer;

  beforeAll(async () => {
    receiver = startOtlpReceiver();
    llm = await startScriptedLlmServer();
    dataDir = tempDir("weft-otel-agent-");
    api = await spawnServer(dataDir, { WEFT_DEMO_LLM: "off", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100" });
  }, 120_000);

  afterAll(async () => {
    api?.proc.kill("SIGKILL");
    await api?.proc.exited;
    await llm?.stop();
    await receiver?.stop();
    removeDir(dataDir);
  });

  it("each step is an invoke_agent span, its deliberation run and LLM call under it, a tool call an execute_tool span with the tool's run under it", async () => {
    const profile = await api.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
    const llmProfileId = ProfileIdAnswerSchema.parse(profile.body).profile.id;
    const created = await api.call("POST", "/api/agents", {
      id: "reader",
      name: "Reader",
      deliberationWorkflowId: "agent-deliberation",
      llmProfileId,
      protocol: "openai-tools",
      maxSteps: 3,
      tools: ["fs:read"],
    });
    expect(created.status).toBe(201);
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "fs_read", arguments: JSON.stringify({ path: "@project/notes.txt" }) }], usage: USAGE }, { kind: "text", chunks: ["Done."], usage: USAGE });
    const sent = await api.call("POST", "/api/agents/reader/messages", { message: "Read my notes" });
    expect(sent.status).toBe(202);

    const spans = await until("the agent's two steps and its tool call", () => {
      const all = receiver.spans();
      const steps = all.filter((s) => s.name === "invoke_agent Reader");
      const tool = all.find((s) => s.name === "execute_tool fs_read");
      return steps.length >= 2 && tool && all.filter((s) => s.traceId === tool.traceId).length >= 5 ? { all, steps, tool } : undefined;
    }).catch((error: unknown) => {
      throw new Error(`${String(error)}; spans: ${spanLines(receiver)}`);
    });
    const first = spans.steps.find((s) => s.attributes["weft.agent.step"] === 1) ?? spans.steps[0];
    expect(first.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "Reader", "gen_ai.agent.id": "reader" });
    const inStep = spans.all.filter((s) => s.traceId === first.traceId);
    const deliberation = inStep.find((s) => s.name.startsWith("run ") && s.parentSpanId === first.spanId);
    expect(deliberation).toBeDefined();
    const chat = inStep.find((s) => s.name === `chat ${llm.model}`);
    expect(chat?.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 321, "gen_ai.usage.output_tokens": 54 });
    expect(spans.tool.parentSpanId).toBe(first.spanId);
    expect(spans.tool.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "fs_read", "weft.tool.id": "fs:read" });
    const toolRun = inStep.find((s) => s.name.startsWith("run ") && s.parentSpanId === spans.tool.spanId);
    expect(toolRun?.attributes["weft.run.id"]).toBe(spans.tool.attributes["weft.run.id"]);
  }, 180_000);
});

describe("OpenTelemetry traces (tracing off)", () => {
  it("with OTEL_SDK_DISABLED=true the receiver gets nothing, though an endpoint is set and runs ran", async () => {
    const receiver = startOtlpReceiver();
    const dataDir = tempDir("weft-otel-off-");
    const api = await spawnServer(dataDir, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100", OTEL_SDK_DISABLED: "true" });
    try {
      const workflow = { id: "hello", name: "Hello", nodes: [{ id: "t", type: "core:text-template", config: { template: "hi" } }], edges: [] };
      expect((await api.call("POST", "/api/workflows", { workflow })).status).toBe(201);
      const runId = await startRun(api, "hello");
      expect((await ended(api, runId)).run.status).toBe("completed");
      // A graceful stop flushes whatever a tracing process still holds: after it, nothing can arrive any more.
      api.proc.kill("SIGTERM");
      expect(await api.proc.exited).toBe(0);
      expect(receiver.requests()).toBe(0);
    } finally {
      api.proc.kill("SIGKILL");
      await api.proc.exited;
      await receiver.stop();
      removeDir(dataDir);
    }
  }, 120_000);
});
