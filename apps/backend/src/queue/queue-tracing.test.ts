import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { RunAnswerSchema, waitFor, type RunAnswer } from "../testing/test-server.ts";
import { ProfileIdAnswerSchema, StartedRunSchema } from "../testing/answers.ts";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../testing/otlp-receiver.ts";
import { until } from "../testing/until.ts";
import { TEST_TOKEN } from "../testing/http-call.ts";
import { startQueueCluster, type QueueCluster } from "./testing/queue-cluster.ts";

/**
 * Queue mode with tracing on in both processes: the API queues the run inside its `enqueue run` span, the run's sealed
 * job carries that span's traceparent, and the worker's `run <workflow>` span (with its nodes and LLM call) joins it —
 * one trace across the two processes, each span exported by the process that made it.
 */
describe("a queued run is one trace across the API and the worker", () => {
  let cluster: QueueCluster;
  let llm: ScriptedLlmServer;
  let receiver: OtlpReceiver;
  let api: QueueCluster["api"];

  const ended = (runId: string): Promise<RunAnswer> =>
    waitFor(
      async () => {
        const answer = RunAnswerSchema.safeParse((await api.call("GET", `/api/runs/${runId}`)).body);
        return answer.success && !["queued", "running"].includes(answer.data.run.status) ? answer.data : undefined;
      },
      120_000,
      `run ${runId} to end`,
    );

  beforeAll(async () => {
    llm = await startScriptedLlmServer({ turns: [{ kind: "text", chunks: ["Traced on a worker."], usage: { prompt_tokens: 77, completion_tokens: 8 } }] });
    receiver = startOtlpReceiver();
    cluster = await startQueueCluster({
      name: "queue-otel",
      workerArgs: ["--concurrency", "1"],
      env: { WEFT_WORKER_LOCK_MS: "5000", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`, OTEL_BSP_SCHEDULE_DELAY: "100" },
    });
    api = cluster.api;
  }, 180_000);

  afterAll(async () => {
    await llm?.stop();
    await receiver?.stop();
    await cluster?.stop();
  });

  it("the worker's run span is the child of the API's enqueue span: same trace id, each from its own service", async () => {
    const profile = await api.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
    expect(profile.status).toBe(201);
    const profileId = ProfileIdAnswerSchema.parse(profile.body).profile.id;
    const workflow = { id: "ask", name: "Ask", nodes: [{ id: "llm", type: "llm:chat", config: { profileId }, inputs: { prompt: "Where do you run?" } }], edges: [] };
    expect((await api.call("POST", "/api/workflows", { workflow })).status).toBe(201);
    const started = await api.call("POST", "/api/workflows/ask/runs", {});
    const runId = StartedRunSchema.parse(started.body).runId;
    expect((await ended(runId)).run.status).toBe("completed");
    expect(cluster.workers[0].runsTaken()).toContain(runId);

    const spans = await until("the run's spans from both processes", () => {
      const all = receiver.spans().filter((s) => s.attributes["weft.run.id"] === runId);
      const enqueue = all.find((s) => s.name === "enqueue run Ask");
      const run = all.find((s) => s.name === "run Ask");
      const chat = all.find((s) => s.name === `chat ${llm.model}`);
      return enqueue && run && chat ? { enqueue, run, chat, all } : undefined;
    });
    const { enqueue, run, chat } = spans;
    expect(enqueue.service).toBe("weft");
    expect(enqueue.parentSpanId).toBe("");
    expect(enqueue.kind).toBe(4); // SPAN_KIND_PRODUCER
    expect(run.service).toBe("weft-worker");
    expect(run.traceId).toBe(enqueue.traceId);
    expect(run.parentSpanId).toBe(enqueue.spanId);
    const node = spans.all.find((s: ReceivedSpan) => s.name === "node llm");
    expect(node?.parentSpanId).toBe(run.spanId);
    expect(chat.traceId).toBe(enqueue.traceId);
    expect(chat.parentSpanId).toBe(node?.spanId);
    expect(chat.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 77, "gen_ai.usage.output_tokens": 8 });
    expect(receiver.rejected()).toEqual([]);
  }, 240_000);

  it("a caller's traceparent crosses the queue: a queued run and an agent message job continue the caller's trace on the worker", async () => {
    const hex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
    const caller = { traceId: hex(16), spanId: hex(8) };
    const headers = { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json", traceparent: `00-${caller.traceId}-${caller.spanId}-01` };

    llm.enqueue({ kind: "text", chunks: ["Joined."], usage: { prompt_tokens: 5, completion_tokens: 1 } });
    const started = await fetch(`${api.url}/api/workflows/ask/runs`, { method: "POST", headers, body: "{}" });
    expect(started.status).toBe(202);
    const runId = StartedRunSchema.parse(await started.json()).runId;
    expect((await ended(runId)).run.status).toBe("completed");
    const run = await until("the worker's run span in the caller's trace", () =>
      receiver.spans().find((s) => s.traceId === caller.traceId && s.name === "run Ask" && s.attributes["weft.run.id"] === runId),
    );
    const enqueue = receiver.spans().find((s) => s.traceId === caller.traceId && s.name === "enqueue run Ask");
    expect(enqueue?.parentSpanId).toBe(caller.spanId);
    expect(run.parentSpanId).toBe(enqueue?.spanId);
    expect(run.service).toBe("weft-worker");

    const profile = await api.call("POST", "/api/llm-profiles", { name: "scripted-agent", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
    const llmProfileId = ProfileIdAnswerSchema.parse(profile.body).profile.id;
    expect(
      (
        await api.call("POST", "/api/agents", {
          id: "queued-reader",
          name: "Queued reader",
          deliberationWorkflowId: "agent-deliberation",
          llmProfileId,
          protocol: "openai-tools",
          maxSteps: 2,
          tools: [],
        })
      ).status,
    ).toBe(201);
    llm.enqueue({ kind: "text", chunks: ["Answered on a worker."], usage: { prompt_tokens: 5, completion_tokens: 1 } });
    const agentCaller = { traceId: hex(16), spanId: hex(8) };
    const sent = await fetch(`${api.url}/api/agents/queued-reader/messages`, {
      method: "POST",
      headers: { ...headers, traceparent: `00-${agentCaller.traceId}-${agentCaller.spanId}-01` },
      body: JSON.stringify({ message: "Where do you run?" }),
    });
    expect(sent.status).toBe(202);
    const step = await until("the worker's agent step in the caller's trace", () => receiver.spans().find((s) => s.traceId === agentCaller.traceId && s.name === "invoke_agent Queued reader"));
    expect(step.parentSpanId).toBe(agentCaller.spanId);
    expect(step.service).toBe("weft-worker");
  }, 240_000);
});
