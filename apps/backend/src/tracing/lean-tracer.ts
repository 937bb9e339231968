import type { Context, Span, SpanOptions, Tracer } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";

/**
 * The SDK's tracer, with a span's start attributes written straight onto the span it recorded. The SDK copies and
 * checks start attributes twice (before and after sampling), each value with a new `WeakSet`, for values Weft builds
 * itself (strings, numbers, booleans, arrays of strings): with a dozen spans per agent step, that was the largest part
 * of starting a span, and of the garbage tracing makes. What the SDK still does: undefined values are no attribute;
 * the samplers see no start attributes (those `OTEL_TRACES_SAMPLER` names ignore them); start attributes do not count
 * towards the 128-attribute limit (Weft's spans have at most 17). `setAttribute` after the start goes the SDK's way.
 */
export class LeanTracer implements Tracer {
  readonly startActiveSpan: Tracer["startActiveSpan"];

  constructor(private readonly sdk: Tracer) {
    this.startActiveSpan = sdk.startActiveSpan.bind(sdk);
  }

  startSpan(name: string, options?: SpanOptions, context?: Context): Span {
    const attributes = options?.attributes;
    if (attributes === undefined) return this.sdk.startSpan(name, options, context);
    const { kind, links, startTime, root } = options ?? {};
    const span = this.sdk.startSpan(name, { kind, links, startTime, root }, context);
    // Only the SDK's own span records (a non-recording one has no attributes to keep).
    if (!span.isRecording()) return span;
    const own = (span as unknown as ReadableSpan).attributes as Record<string, unknown>;
    for (const key in attributes) {
      const value = attributes[key];
      if (value !== undefined) own[key] = value;
    }
    return span;
  }
}
