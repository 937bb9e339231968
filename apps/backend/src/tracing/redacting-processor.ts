import type { Context } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace";
import { GEN_AI } from "@weft/agent-runtime";
import type { SecretRedactor } from "@weft/types";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Attributes = ReadableSpan["attributes"];

/** Attributes whose text the recorder already redacted, string by string, before serialising (`span-content.ts`). */
const REDACTED_AT_SOURCE: ReadonlySet<string> = new Set([GEN_AI.inputMessages, GEN_AI.outputMessages]);

function redactAttributes(attributes: Attributes, redactor: SecretRedactor): void {
  const bag = attributes as Record<string, unknown>;
  // for…in, not Object.entries: this runs for every span, and allocates nothing when nothing changes.
  for (const key in bag) {
    const value = bag[key];
    if (typeof value === "string") {
      if (!REDACTED_AT_SOURCE.has(key)) bag[key] = redactor.text(value);
    } else if (Array.isArray(value)) bag[key] = value.map((item: unknown) => (typeof item === "string" ? redactor.text(item) : item));
  }
}

/**
 * Passes every ended span through the process's secret redactor before `inner` (the exporting processor) sees it:
 * its name, attributes, status message, events and links. Whatever a span picked up — an error message quoting a
 * credential, a prompt with a key in it — no known secret leaves the process.
 */
export class RedactingSpanProcessor implements SpanProcessor {
  constructor(
    private readonly inner: SpanProcessor,
    private readonly redactor: SecretRedactor,
  ) {}

  onStart(span: Span, parentContext: Context): void {
    this.inner.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    const r = this.redactor;
    const open = span as Mutable<ReadableSpan>;
    open.name = r.text(span.name);
    redactAttributes(span.attributes, r);
    if (span.status.message !== undefined) open.status = { ...span.status, message: r.text(span.status.message) };
    for (const event of span.events as Mutable<ReadableSpan["events"][number]>[]) {
      event.name = r.text(event.name);
      if (event.attributes) redactAttributes(event.attributes, r);
    }
    for (const link of span.links) if (link.attributes) redactAttributes(link.attributes, r);
    this.inner.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}
