import { describe, expect, it } from "vitest";
import { ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import { AlwaysOffSampler, InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan, type Sampler } from "@opentelemetry/sdk-trace";
import { LeanTracer } from "./lean-tracer.ts";

/** The SDK's provider exporting to memory, and a lean tracer over its tracer. */
function traced(sampler?: Sampler): { tracer: LeanTracer; ended: () => Promise<ReadableSpan[]> } {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ ...(sampler ? { sampler } : {}), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  return {
    tracer: new LeanTracer(provider.getTracer("weft-test")),
    ended: async () => {
      await provider.forceFlush();
      return exporter.getFinishedSpans();
    },
  };
}

describe("LeanTracer: the SDK's spans, start attributes written straight onto them", () => {
  it("a span keeps its start attributes (undefined ones are none), its kind, its parent, and what is set after the start", async () => {
    const { tracer, ended: exported } = traced();
    const parent = tracer.startSpan("parent", undefined, ROOT_CONTEXT);
    const child = tracer.startSpan(
      "chat model",
      { kind: SpanKind.CLIENT, attributes: { "gen_ai.operation.name": "chat", "server.port": 443, "weft.cached": false, "weft.scene.id": undefined } },
      trace.setSpan(ROOT_CONTEXT, parent),
    );
    child.setAttribute("weft.status", "completed");
    child.end();
    parent.end();

    const [ended] = await exported();
    expect(ended?.name).toBe("chat model");
    expect(ended?.kind).toBe(SpanKind.CLIENT);
    expect(ended?.attributes).toStrictEqual({ "gen_ai.operation.name": "chat", "server.port": 443, "weft.cached": false, "weft.status": "completed" });
    expect(ended?.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(ended?.spanContext().traceId).toBe(parent.spanContext().traceId);
  });

  it("a span the sampler drops records nothing and exports nothing", async () => {
    const { tracer, ended } = traced(new AlwaysOffSampler());
    const span = tracer.startSpan("dropped", { attributes: { "weft.run.id": "run-1" } }, ROOT_CONTEXT);
    span.end();
    expect(span.isRecording()).toBe(false);
    expect(await ended()).toEqual([]);
  });
});
