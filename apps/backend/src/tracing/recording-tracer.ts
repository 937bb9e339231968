import { context, INVALID_SPAN_CONTEXT, isSpanContextValid, SamplingDecision, SpanKind, trace, TraceFlags, type Context, type Span, type SpanOptions, type Tracer } from "@opentelemetry/api";
import { isTracingSuppressed } from "@opentelemetry/core";
import { RandomIdGenerator, type Sampler } from "@opentelemetry/sdk-trace";
import { RecordedSpan, type SpanSink } from "./recorded-span.ts";

type ActiveSpanArgs<F> = [fn: F] | [options: SpanOptions, fn: F] | [options: SpanOptions, context: Context, fn: F];

/**
 * The tracer `startTracing` hands the runtime: the API's `Tracer` over the SDK's sampler and id generator, whose
 * recording spans (`RecordedSpan`) go to `sink` as they end. It is the SDK `Tracer`'s decisions (a suppressed
 * context, the parent's trace, the sampler's answer and attributes) without the SDK span's bookkeeping: an agent step
 * makes about 13 spans, and the SDK's `startSpan` copies and checks each span's attributes twice, allocating a
 * `WeakSet` per value (@opentelemetry/core 3.1.1 `isAnyValue`), which cost the agent loop about 10% CPU
 * (bench/agent-tracing.bench.ts, its `sdk` arm).
 */
export class RecordingTracer implements Tracer {
  private readonly ids = new RandomIdGenerator();

  constructor(
    private readonly sampler: Sampler,
    private readonly sink: SpanSink,
  ) {}

  startSpan(name: string, options: SpanOptions = {}, ctx: Context = context.active()): Span {
    if (options.root) ctx = trace.deleteSpan(ctx);
    if (isTracingSuppressed(ctx)) return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    const parent = trace.getSpanContext(ctx);
    const validParent = parent !== undefined && isSpanContextValid(parent) ? parent : undefined;
    const traceId = validParent?.traceId ?? this.ids.generateTraceId();
    const spanId = this.ids.generateSpanId();
    const kind = options.kind ?? SpanKind.INTERNAL;
    const sampling = this.sampler.shouldSample(ctx, traceId, name, kind, options.attributes ?? {}, options.links ?? []);
    const spanContext = {
      traceId,
      spanId,
      traceFlags: sampling.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE,
      traceState: sampling.traceState ?? validParent?.traceState,
    };
    if (sampling.decision === SamplingDecision.NOT_RECORD) return trace.wrapSpanContext(spanContext);
    const span = new RecordedSpan(this.sink, spanContext, name, kind, validParent, options.attributes, options.links, options.startTime);
    if (sampling.attributes) span.setAttributes(sampling.attributes);
    return span;
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...args: ActiveSpanArgs<F>): ReturnType<F> {
    const [options, parent, fn] = args.length === 1 ? [undefined, undefined, args[0]] : args.length === 2 ? [args[0], undefined, args[1]] : args;
    const ctx = parent ?? context.active();
    const span = this.startSpan(name, options, ctx);
    return context.with(trace.setSpan(ctx, span), fn as (span: Span) => ReturnType<F>, undefined, span);
  }
}
