import type { Attributes, Link, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { hrTimeDuration, millisToHrTime, TraceState, type InstrumentationScope } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace";
import type { RecordedSpan } from "./recorded-span.ts";

/** A link's span context and attributes, the trace state serialised. */
type LinkRecord = [traceId: string, spanId: string, traceFlags: number, traceState: string | null, isRemote: boolean | null, attributes: Attributes | null, dropped: number];

/**
 * An ended span as a JSON tuple: what the OTLP serializer reads of a `ReadableSpan`, without the span's processor,
 * limits, resource and scope objects. A tuple, not an object: no key is written or parsed per span.
 */
export type SpanRecord = [
  traceId: string,
  spanId: string,
  traceFlags: number,
  traceState: string | null,
  parentSpanId: string | null,
  parentIsRemote: boolean | null,
  name: string,
  kind: SpanKind,
  /** Epoch milliseconds, to the microsecond. */
  startMs: number,
  endMs: number,
  attributes: Attributes,
  droppedAttributesCount: number,
  events: TimedEvent[],
  droppedEventsCount: number,
  statusCode: SpanStatusCode,
  statusMessage: string | null,
  links: LinkRecord[],
  droppedLinksCount: number,
  /** Index into the batch's `scopes`. */
  scope: number,
];

/**
 * A batch as it crosses to the export thread: `spans` is the JSON array of the records as UTF-8, its buffer
 * transferred, not copied (structured-cloning 512 span objects cost the agent loop's thread about twice as much as
 * encoding them as JSON; posting that JSON as a string, about twice as much as encoding it to bytes).
 */
export interface SpanBatch {
  scopes: InstrumentationScope[];
  spans: Uint8Array;
}

const toLinkRecord = (link: Link): LinkRecord => {
  const c = link.context;
  return [c.traceId, c.spanId, c.traceFlags, c.traceState?.serialize() ?? null, c.isRemote ?? null, link.attributes ?? null, link.droppedAttributesCount ?? 0];
};

/** The record of an ended span: its values, not copies (the span has ended, nothing changes them). */
export function spanRecord(span: RecordedSpan, scope: number): SpanRecord {
  const ctx = span.spanContext();
  const parent = span.parentSpanContext;
  return [
    ctx.traceId,
    ctx.spanId,
    ctx.traceFlags,
    ctx.traceState?.serialize() ?? null,
    parent?.spanId ?? null,
    parent?.isRemote ?? null,
    span.name,
    span.kind,
    span.startMs,
    span.endMs,
    span.attributes,
    span.droppedAttributesCount,
    span.events,
    span.droppedEventsCount,
    span.status.code,
    span.status.message ?? null,
    span.links.length === 0 ? [] : span.links.map(toLinkRecord),
    span.droppedLinksCount,
    scope,
  ];
}

const toUtf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/**
 * A batch's records as UTF-8 JSON, in one `JSON.stringify`. A call per span as it ends, the batch joined, cost more
 * (bench/spans.bench.ts, 3 pairs: 0.118–0.131 ms of the agents' thread per step against 0.097–0.099), and a
 * hand-written encoder twice as much.
 * Span attributes are strings, numbers, booleans and arrays of them in Weft; what JSON cannot carry
 * (a non-finite number, bytes) arrives as null.
 */
export const encodeSpans = (records: readonly SpanRecord[]): Uint8Array => toUtf8.encode(JSON.stringify(records));

const traceStateOf = (serialized: string | null) => (serialized === null ? undefined : new TraceState(serialized));
const orUndefined = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

/** A batch's spans as the exporter reads them, under the export thread's `resource` and scopes. */
export function decodeSpans(batch: SpanBatch, resource: Resource, scopeOf: (scope: InstrumentationScope) => InstrumentationScope): ReadableSpan[] {
  const scopes = batch.scopes.map(scopeOf);
  return (JSON.parse(fromUtf8.decode(batch.spans)) as SpanRecord[]).map((r) => {
    const spanContext = { traceId: r[0], spanId: r[1], traceFlags: r[2], traceState: traceStateOf(r[3]) };
    const scope = scopes[r[18]];
    const startTime = millisToHrTime(r[8]);
    const endTime = millisToHrTime(r[9]);
    if (scope === undefined) throw new Error(`span "${r[6]}" names scope ${r[18]} of ${scopes.length}`);
    return {
      name: r[6],
      kind: r[7],
      spanContext: () => spanContext,
      parentSpanContext: r[4] === null ? undefined : { traceId: r[0], spanId: r[4], traceFlags: r[2], isRemote: orUndefined(r[5]) },
      startTime,
      endTime,
      duration: hrTimeDuration(startTime, endTime),
      ended: true,
      status: { code: r[14], message: orUndefined(r[15]) },
      attributes: r[10],
      links: r[16].map((l) => ({
        context: { traceId: l[0], spanId: l[1], traceFlags: l[2], traceState: traceStateOf(l[3]), isRemote: orUndefined(l[4]) },
        attributes: orUndefined(l[5]),
        droppedAttributesCount: l[6],
      })),
      events: r[12],
      resource,
      instrumentationScope: scope,
      droppedAttributesCount: r[11],
      droppedEventsCount: r[13],
      droppedLinksCount: r[17],
    };
  });
}
