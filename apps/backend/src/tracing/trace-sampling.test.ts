import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnServer, type ChildServer } from "../testing/child-server.ts";
import { RunAnswerSchema, removeDir, tempDir, waitFor } from "../testing/test-server.ts";
import { StartedRunSchema } from "../testing/answers.ts";
import { startOtlpReceiver, type OtlpReceiver } from "../testing/otlp-receiver.ts";
import { spanLines, traceOf } from "../testing/traces.ts";
import { until } from "../testing/until.ts";
import { TEST_TOKEN } from "../testing/http-call.ts";

/** A caller's trace with its sampled flag: `-01` the caller records it, `-00` it does not. */
function callerTrace(sampled: boolean): { traceId: string; spanId: string; traceparent: string } {
  const hex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-${sampled ? "01" : "00"}` };
}

/**
 * The local ratio is 0 (`parentbased_traceidratio`, `_ARG=0`): a root trace is never recorded, so whatever is received
 * was recorded because its caller said so. "Not received" is checked after a later trace has arrived: the batch
 * processor exports spans in the order they ended, one export at a time, so an earlier trace's spans would be there.
 */
describe("sampling follows the caller's traceparent (tracing on, OTEL_TRACES_SAMPLER=parentbased_traceidratio with ratio 0)", () => {
  let receiver: OtlpReceiver;
  let dataDir: string;
  let api: ChildServer;
  const auth = { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" };

  beforeAll(async () => {
    receiver = startOtlpReceiver();
    dataDir = tempDir("weft-otel-sampling-");
    api = await spawnServer(dataDir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0",
    });
    const workflow = { id: "hello", name: "Hello", nodes: [{ id: "t", type: "core:text-template", config: { template: "hi" } }], edges: [] };
    expect((await api.call("POST", "/api/workflows", { workflow })).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    api?.proc.kill("SIGKILL");
    await api?.proc.exited;
    await receiver?.stop();
    removeDir(dataDir);
  });

  /** Starts a run of `hello` (with `headers`) and waits for it to complete; answers its id. */
  const run = async (headers: Record<string, string>): Promise<string> => {
    const res = await fetch(`${api.url}/api/workflows/hello/runs`, { method: "POST", headers: { ...auth, ...headers }, body: "{}" });
    expect(res.status).toBe(202);
    const runId = StartedRunSchema.parse(await res.json()).runId;
    const status = await waitFor(
      async () => {
        const answer = RunAnswerSchema.safeParse((await api.call("GET", `/api/runs/${runId}`)).body);
        return answer.success && !["queued", "running"].includes(answer.data.run.status) ? answer.data.run.status : undefined;
      },
      120_000,
      `run ${runId} to end`,
    );
    expect(status).toBe("completed");
    return runId;
  };

  /** An agent conversation through /v1/chat/completions (answered when the conversation ends). */
  const converse = async (headers: Record<string, string>): Promise<void> => {
    const res = await fetch(`${api.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...auth, ...headers },
      body: JSON.stringify({ model: "text-helper", messages: [{ role: "user", content: "Please uppercase this text: hello weft" }] }),
    });
    expect(res.status).toBe(200);
  };

  const spansOf = (traceId: string) => receiver.spans().filter((s) => s.traceId === traceId);
  const ofRun = (runId: string) => receiver.spans().filter((s) => s.attributes["weft.run.id"] === runId);

  it("a run whose caller sent sampled=0 records no span, nor does a root run (ratio 0); a caller's sampled=1 is recorded whole", async () => {
    const unsampled = callerTrace(false);
    const unsampledRun = await run({ traceparent: unsampled.traceparent });
    const rootRun = await run({});
    const sampled = callerTrace(true);
    const sampledRun = await run({ traceparent: sampled.traceparent });

    // The sampled caller's run: its run span under the caller's span, and the node span under it.
    const spans = await traceOf(receiver, sampledRun, 2, sampled.spanId);
    expect(spans.map((s) => s.name).sort()).toEqual(["node t", "run Hello"]);
    expect(spans.every((s) => s.traceId === sampled.traceId)).toBe(true);
    // Ended before it, so exported before it: had they been recorded, they would be here.
    expect(spansOf(unsampled.traceId)).toEqual([]);
    expect(ofRun(unsampledRun)).toEqual([]);
    expect(ofRun(rootRun)).toEqual([]);
  }, 240_000);

  it("an agent conversation follows its caller the same way: sampled=0 records nothing, sampled=1 records its steps", async () => {
    const unsampled = callerTrace(false);
    await converse({ traceparent: unsampled.traceparent });
    const sampled = callerTrace(true);
    await converse({ traceparent: sampled.traceparent });

    const step = await until(`an agent step in the sampled caller's trace ${sampled.traceId}`, () =>
      receiver.spans().find((s) => s.traceId === sampled.traceId && s.name.startsWith("invoke_agent ")),
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; spans: ${spanLines(receiver)}`);
    });
    expect(step.parentSpanId).toBe(sampled.spanId);
    // The LLM call of that step is recorded too (a child in the same trace), with its GenAI attributes.
    const chat = await until("the step's chat span", () => spansOf(sampled.traceId).find((s) => s.attributes["gen_ai.operation.name"] === "chat"));
    expect(chat.attributes["gen_ai.request.model"]).toEqual(expect.any(String));
    expect(spansOf(unsampled.traceId)).toEqual([]);
  }, 240_000);
});
