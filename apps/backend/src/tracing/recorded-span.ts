import {
  SpanStatusCode,
  type Attributes,
  type AttributeValue,
  type Exception,
  type HrTime,
  type Link,
  type Span,
  type SpanAttributes,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  type TimeInput,
} from "@opentelemetry/api";
import { hrTimeDuration, isAttributeValue, isTimeInput, millisToHrTime, timeInputToHrTime, type InstrumentationScope } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace";

/** The specification's span limits (OTEL_SPAN_* / OTEL_ATTRIBUTE_*), as `readTracingConfig` read them. */
export interface SpanLimits {
  attributeCountLimit: number;
  attributeValueLengthLimit: number;
  eventCountLimit: number;
  linkCountLimit: number;
}

/** What a recorded span shares with every other of its tracer. */
export interface SpanSink {
  resource: Resource;
  scope: InstrumentationScope;
  limits: SpanLimits;
  /** Takes the span once it ended (redaction, then the export queue). */
  ended(span: RecordedSpan): void;
}

/** A value within the length limit: strings cut, arrays of strings cut item by item (the specification's rule). */
function limited(value: AttributeValue, limit: number): AttributeValue {
  if (limit === Infinity) return value;
  if (typeof value === "string") return value.length <= limit ? value : value.slice(0, limit);
  if (Array.isArray(value)) return value.map((item: unknown) => (typeof item === "string" && item.length > limit ? item.slice(0, limit) : item)) as AttributeValue;
  return value;
}

/** Epoch milliseconds (to the microsecond, a double's precision here): one number per time, not three arrays. */
function epochMs(time: TimeInput | undefined): number {
  if (time === undefined) return performance.timeOrigin + performance.now();
  const [seconds, nanos] = timeInputToHrTime(time);
  return seconds * 1e3 + nanos / 1e6;
}

const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });
const NONE: never[] = Object.freeze([]) as never[];

/**
 * A recording span of `RecordingTracer`: the API's `Span` while it runs and, once it ended, the SDK's `ReadableSpan`,
 * the shape redaction (`redactSpan`) and the export queue (`spanRecord`) read. It holds only what the OTLP
 * exporter reads: attributes are checked as they are set (the API's attribute values; `undefined` is no attribute),
 * within the span limits.
 */
export class RecordedSpan implements Span, ReadableSpan {
  readonly attributes: Attributes = {};
  status: SpanStatus = UNSET;
  ended = false;
  droppedAttributesCount = 0;
  droppedEventsCount = 0;
  droppedLinksCount = 0;
  private attributeCount = 0;
  // Most spans have no links or events: the shared empty array until the first.
  private linkList: Link[] = NONE;
  private eventList: TimedEvent[] = NONE;
  /** Epoch milliseconds: what the span's record carries (`span-record.ts`), not `HrTime` arrays. */
  readonly startMs: number;
  endMs = 0;

  constructor(
    private readonly sink: SpanSink,
    private readonly context: SpanContext,
    public name: string,
    readonly kind: SpanKind,
    readonly parentSpanContext: SpanContext | undefined,
    attributes: SpanAttributes | undefined,
    links: readonly Link[] | undefined,
    startTime: TimeInput | undefined,
  ) {
    this.startMs = epochMs(startTime);
    if (attributes) this.setAttributes(attributes);
    if (links) for (const link of links) this.addLink(link);
  }

  get links(): Link[] {
    return this.linkList;
  }

  get events(): TimedEvent[] {
    return this.eventList;
  }

  get startTime(): HrTime {
    return millisToHrTime(this.startMs);
  }

  get endTime(): HrTime {
    return this.ended ? millisToHrTime(this.endMs) : [0, 0];
  }

  get duration(): HrTime {
    return this.ended ? hrTimeDuration(this.startTime, this.endTime) : [-1, -1];
  }

  get resource(): Resource {
    return this.sink.resource;
  }

  get instrumentationScope(): InstrumentationScope {
    return this.sink.scope;
  }

  spanContext(): SpanContext {
    return this.context;
  }

  setAttribute(key: string, value: AttributeValue | undefined): this {
    if (this.ended || value === undefined || key.length === 0) return this;
    if (!isAttributeValue(value)) {
      this.droppedAttributesCount++;
      return this;
    }
    const isNew = !Object.hasOwn(this.attributes, key);
    if (isNew && this.attributeCount >= this.sink.limits.attributeCountLimit) {
      this.droppedAttributesCount++;
      return this;
    }
    this.attributes[key] = limited(value, this.sink.limits.attributeValueLengthLimit);
    if (isNew) this.attributeCount++;
    return this;
  }

  setAttributes(attributes: SpanAttributes): this {
    for (const key in attributes) if (Object.hasOwn(attributes, key)) this.setAttribute(key, attributes[key]);
    return this;
  }

  addEvent(name: string, attributesOrTime?: SpanAttributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    const isTime = isTimeInput(attributesOrTime);
    const eventAttributes: Attributes = {};
    if (!isTime && attributesOrTime)
      for (const key in attributesOrTime) {
        const value = attributesOrTime[key];
        if (value !== undefined && isAttributeValue(value)) eventAttributes[key] = limited(value, this.sink.limits.attributeValueLengthLimit);
      }
    if (this.eventList === NONE) this.eventList = [];
    if (this.eventList.length >= this.sink.limits.eventCountLimit) {
      this.eventList.shift();
      this.droppedEventsCount++;
    }
    const at = millisToHrTime(epochMs(isTime ? (attributesOrTime as TimeInput) : time));
    this.eventList.push({ name, attributes: eventAttributes, time: at, droppedAttributesCount: 0 });
    return this;
  }

  addLink(link: Link): this {
    if (this.ended) return this;
    if (this.linkList.length >= this.sink.limits.linkCountLimit) {
      this.droppedLinksCount++;
      return this;
    }
    if (this.linkList === NONE) this.linkList = [];
    this.linkList.push(link);
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  /** As the specification says: UNSET changes nothing, OK is final, and only ERROR carries a message. */
  setStatus(status: SpanStatus): this {
    if (this.ended || status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK) return this;
    this.status = status.code === SpanStatusCode.ERROR && typeof status.message === "string" ? { code: status.code, message: status.message } : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    this.ended = true;
    // A clock that went back ends the span where it started, as the SDK does.
    this.endMs = Math.max(this.startMs, epochMs(endTime));
    this.sink.ended(this);
  }

  isRecording(): boolean {
    return !this.ended;
  }

  /** The semantic conventions' `exception` event. */
  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: SpanAttributes = {};
    if (typeof exception === "string") attributes["exception.message"] = exception;
    else {
      const type = exception.code ?? exception.name;
      if (type !== undefined) attributes["exception.type"] = String(type);
      if (exception.message) attributes["exception.message"] = exception.message;
      if (exception.stack) attributes["exception.stacktrace"] = exception.stack;
    }
    this.addEvent("exception", attributes, time);
  }
}
