import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { trace } from "@opentelemetry/api";
import { ExecutionEngine } from "@weft/agent-runtime";
import { defineNode, NodeRegistry } from "@weft/nodes";
import { SecretRedactor, silentLogger, WorkflowSchema } from "@weft/types";
import { startTracing, type ProcessTracing } from "./process-tracing.ts";
import { startOtlpReceiver, type OtlpReceiver } from "../testing/otlp-receiver.ts";
import { byName, traceOf } from "../testing/traces.ts";

/** The active span's id each node saw while it executed, by node id ("" for none). */
const seen = new Map<string, string>();
const record = (nodeId: string) => seen.set(nodeId, trace.getActiveSpan()?.spanContext().spanId ?? "");

/**
 * A node that may call out (not idempotent) executes in its span's context, so what it calls nests under it; an
 * idempotent one (no side effects: nothing can nest under it) executes without entering one, which costs an agent
 * step ~0.3 ms CPU per node context. Both still get their span.
 */
describe("the context a traced node executes in (tracing on)", () => {
  let receiver: OtlpReceiver;
  let tracing: ProcessTracing;

  beforeAll(() => {
    receiver = startOtlpReceiver();
    // The OTLP exporter reads its endpoint from the process's environment, as in a server.
    vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url);
    const started = startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "50" }, "weft-node-context-test", new SecretRedactor(), silentLogger);
    if (!started) throw new Error("tracing did not start with an OTLP endpoint set");
    tracing = started;
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await tracing.shutdown();
    await receiver.stop();
  });

  it("a non-idempotent node (sync or async) runs in its own span's context; an idempotent one does not, and both have a span under the run", async () => {
    const catalog = new NodeRegistry();
    catalog.registerAll([
      defineNode({ type: "test:pure", title: "Pure", outputs: [{ id: "value", type: "any" }], flags: { idempotent: true } }, (_inputs, ctx) => {
        record(ctx.nodeId);
        return { value: 1 };
      }),
      defineNode({ type: "test:effect", title: "Effect", outputs: [{ id: "value", type: "any" }] }, (_inputs, ctx) => {
        record(ctx.nodeId);
        return { value: 2 };
      }),
      defineNode({ type: "test:effect-async", title: "Async effect", outputs: [{ id: "value", type: "any" }] }, async (_inputs, ctx) => {
        await Promise.resolve();
        record(ctx.nodeId);
        return { value: 3 };
      }),
    ]);
    const engine = new ExecutionEngine({ catalog, tracing: tracing.tracing });
    const workflow = WorkflowSchema.parse({
      id: "contexts",
      name: "Contexts",
      nodes: [
        { id: "pure", type: "test:pure", position: { x: 0, y: 0 }, config: {}, inputs: {} },
        { id: "effect", type: "test:effect", position: { x: 0, y: 0 }, config: {}, inputs: {} },
        { id: "later", type: "test:effect-async", position: { x: 0, y: 0 }, config: {}, inputs: {} },
      ],
      edges: [],
    });
    const result = await engine.run(workflow);
    expect(result.status).toBe("completed");

    const spans = await traceOf(receiver, result.runId, 4);
    const run = byName(spans, "run Contexts");
    for (const nodeId of ["pure", "effect", "later"]) expect(byName(spans, `node ${nodeId}`).parentSpanId).toBe(run.spanId);
    expect(seen.get("effect")).toBe(byName(spans, "node effect").spanId);
    expect(seen.get("later")).toBe(byName(spans, "node later").spanId);
    // Run outside any span: the idempotent node sees none, not its own.
    expect(seen.get("pure")).toBe("");
  });
});
