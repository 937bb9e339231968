import { context, ROOT_CONTEXT } from "@opentelemetry/api";
import { suppressTracing, type ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";

/**
 * Hands a batch to `inner` on a later turn of the event loop, outside any trace (and untraced itself). The batch processor calls `export`
 * from inside `span.end()` when its batch fills: without this, the protobuf encoding and the HTTP request of 512 spans
 * would run on the call stack of whichever node, LLM call or agent step happened to end that span.
 */
export class DeferredExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    setImmediate(() => context.with(suppressTracing(ROOT_CONTEXT), () => this.inner.export(spans, resultCallback)));
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
