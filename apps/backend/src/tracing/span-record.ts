import type { Attributes, HrTime, Link, SpanKind, SpanStatus } from "@opentelemetry/api";
import { hrTimeDuration, TraceState, type InstrumentationScope } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace";

/** A link as it crosses to the export thread: its span context's parts, the trace state serialised. */
interface LinkRecord {
  traceId: string;
  spanId: string;
  traceFlags: number;
  traceState: string | undefined;
  isRemote: boolean | undefined;
  attributes: Attributes | undefined;
  droppedAttributesCount: number | undefined;
}

/**
 * An ended span as plain data (structured-cloneable): what the OTLP serializer reads of a `ReadableSpan`, without
 * the span's processor, limits, resource and scope objects. `scope` indexes the batch's `scopes`.
 */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  traceFlags: number;
  traceState: string | undefined;
  parentSpanId: string | undefined;
  parentIsRemote: boolean | undefined;
  name: string;
  kind: SpanKind;
  startTime: HrTime;
  endTime: HrTime;
  attributes: Attributes;
  droppedAttributesCount: number;
  events: TimedEvent[];
  droppedEventsCount: number;
  status: SpanStatus;
  links: LinkRecord[];
  droppedLinksCount: number;
  scope: number;
}

/** A batch of records and the instrumentation scopes they index. */
export interface SpanBatch {
  scopes: InstrumentationScope[];
  spans: SpanRecord[];
}

const NO_LINKS: LinkRecord[] = [];

/**
 * The record of an ended span. Its attributes, events, status and times are taken by reference: an ended span no
 * longer changes, and the copy is the one `postMessage` makes.
 */
export function toSpanRecord(span: ReadableSpan, scope: number): SpanRecord {
  const ctx = span.spanContext();
  const parent = span.parentSpanContext;
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    traceFlags: ctx.traceFlags,
    traceState: ctx.traceState?.serialize(),
    parentSpanId: parent?.spanId,
    parentIsRemote: parent?.isRemote,
    name: span.name,
    kind: span.kind,
    startTime: span.startTime,
    endTime: span.endTime,
    attributes: span.attributes,
    droppedAttributesCount: span.droppedAttributesCount,
    events: span.events,
    droppedEventsCount: span.droppedEventsCount,
    status: span.status,
    links: span.links.length === 0 ? NO_LINKS : span.links.map(toLinkRecord),
    droppedLinksCount: span.droppedLinksCount,
    scope,
  };
}

function toLinkRecord(link: Link): LinkRecord {
  const c = link.context;
  return {
    traceId: c.traceId,
    spanId: c.spanId,
    traceFlags: c.traceFlags,
    traceState: c.traceState?.serialize(),
    isRemote: c.isRemote,
    attributes: link.attributes,
    droppedAttributesCount: link.droppedAttributesCount,
  };
}

const traceStateOf = (serialized: string | undefined) => (serialized === undefined ? undefined : new TraceState(serialized));

/** The span a record was made of, as the exporter reads it, under the export thread's `resource` and `scope`. */
export function fromSpanRecord(record: SpanRecord, resource: Resource, scope: InstrumentationScope): ReadableSpan {
  const spanContext = { traceId: record.traceId, spanId: record.spanId, traceFlags: record.traceFlags, traceState: traceStateOf(record.traceState) };
  return {
    name: record.name,
    kind: record.kind,
    spanContext: () => spanContext,
    parentSpanContext:
      record.parentSpanId === undefined ? undefined : { traceId: record.traceId, spanId: record.parentSpanId, traceFlags: record.traceFlags, isRemote: record.parentIsRemote },
    startTime: record.startTime,
    endTime: record.endTime,
    duration: hrTimeDuration(record.startTime, record.endTime),
    ended: true,
    status: record.status,
    attributes: record.attributes,
    links: record.links.map((link) => ({
      context: { traceId: link.traceId, spanId: link.spanId, traceFlags: link.traceFlags, traceState: traceStateOf(link.traceState), isRemote: link.isRemote },
      attributes: link.attributes,
      droppedAttributesCount: link.droppedAttributesCount,
    })),
    events: record.events,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: record.droppedAttributesCount,
    droppedEventsCount: record.droppedEventsCount,
    droppedLinksCount: record.droppedLinksCount,
  };
}
