import type { Attributes } from "@opentelemetry/api";
import type { TimedEvent } from "@opentelemetry/sdk-trace";
import { GEN_AI } from "@weft/agent-runtime";
import type { SecretRedactor } from "@weft/types";
import type { RecordedSpan } from "./recorded-span.ts";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

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
 * Passes an ended span through the process's secret redactor before it is queued for export: its name, attributes,
 * status message, events and links. Whatever a span picked up — an error message quoting a credential, a prompt with
 * a key in it — no known secret leaves the process.
 */
export function redactSpan(span: RecordedSpan, redactor: SecretRedactor): void {
  span.name = redactor.text(span.name);
  redactAttributes(span.attributes, redactor);
  if (span.status.message !== undefined) span.status = { ...span.status, message: redactor.text(span.status.message) };
  for (const event of span.events as Mutable<TimedEvent>[]) {
    event.name = redactor.text(event.name);
    if (event.attributes) redactAttributes(event.attributes, redactor);
  }
  for (const link of span.links) if (link.attributes) redactAttributes(link.attributes, redactor);
}
