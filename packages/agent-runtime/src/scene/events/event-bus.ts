import type { z } from "zod";
import { silentLogger, type EventBusService, type JsonValue, type Logger, type RunEventDraft, messageOf } from "@weft/types";
import { SceneError } from "../errors.ts";
import { toJsonValue } from "../state/json-value.ts";
import { assertTopic, compileTopicPattern, type TopicMatcher } from "./topic-pattern.ts";

/** A published event as subscribers receive it (frozen: one subscriber cannot change what the next sees). */
export interface BusEvent {
  readonly seq: number;
  readonly topic: string;
  readonly payload: JsonValue;
  readonly source: string;
  readonly ts: number;
}

export type BusHandler = (event: BusEvent) => void | Promise<void>;

export interface EventBusOptions {
  /** Receives a `scene.event` for every published event. */
  emit?: (draft: RunEventDraft) => void;
  /** Payload schemas by exact topic: a publish whose payload does not fit is refused (INVALID_PAYLOAD). */
  payloadSchemas?: Record<string, z.ZodType>;
  logger?: Logger;
  clock?: () => number;
}

interface Subscription {
  pattern: string;
  matches: TopicMatcher;
  handler: BusHandler;
  active: boolean;
}

/**
 * The scene's publish/subscribe channel. Events are numbered and delivered in publish order; a
 * subscriber is called synchronously, one event at a time, so an event published from inside a
 * handler is delivered after the current one. A subscriber that throws or rejects is logged and
 * counted, and never stops delivery to the others.
 */
export class EventBus implements EventBusService {
  private seq = 0;
  private subs: Subscription[] = [];
  private readonly pending: Array<{ event: BusEvent; delivered: () => void }> = [];
  private draining = false;
  private failures = 0;
  private readonly log: Logger;
  private readonly clock: () => number;

  constructor(private readonly options: EventBusOptions = {}) {
    this.log = options.logger ?? silentLogger;
    this.clock = options.clock ?? Date.now;
  }

  /** Calls `handler` for each event whose topic matches `pattern`; returns the unsubscribe function. */
  subscribe(pattern: string, handler: BusHandler): () => void {
    const sub: Subscription = { pattern, matches: compileTopicPattern(pattern), handler, active: true };
    this.subs = [...this.subs, sub];
    return () => {
      sub.active = false;
      this.subs = this.subs.filter((s) => s !== sub);
    };
  }

  /**
   * Publishes an event. Refuses (rejects with a SceneError or WorldStateError) an invalid topic,
   * a payload that is not JSON or does not fit the topic's schema. Resolves once every matching
   * subscriber has been called.
   */
  publish(topic: string, payload: unknown, source = "system"): Promise<void> {
    let event: BusEvent;
    try {
      event = this.accept(topic, payload, source);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<void>((delivered) => {
      this.pending.push({ event, delivered });
      this.drain();
    });
  }

  /** The number of the last published event (0 before any). */
  get lastSeq(): number {
    return this.seq;
  }

  /** Subscriber calls that threw or rejected. */
  get subscriberFailures(): number {
    return this.failures;
  }

  /** Continues numbering after a restore. */
  resumeNumbering(lastSeq: number): void {
    this.seq = lastSeq;
  }

  private accept(topic: string, payload: unknown, source: string): BusEvent {
    assertTopic(topic);
    if (typeof source !== "string" || source.length === 0) throw new SceneError("INVALID_SOURCE", 'An event source must be a non-empty string (an agent instance id, "user" or "system").');
    const json = toJsonValue(payload ?? null, "", `as the payload of "${topic}"`);
    const schema = this.options.payloadSchemas?.[topic];
    if (schema) {
      const checked = schema.safeParse(json);
      if (!checked.success) {
        const problems = checked.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(payload)"}: ${i.message}`).join("; ");
        throw new SceneError("INVALID_PAYLOAD", `The payload of "${topic}" does not fit its schema: ${problems}.`, { topic });
      }
    }
    const event: BusEvent = deepFreeze({ seq: ++this.seq, topic, payload: json, source, ts: this.clock() });
    this.options.emit?.({ type: "scene.event", topic, payload: json, source });
    return event;
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    try {
      for (let next = this.pending.shift(); next; next = this.pending.shift()) {
        for (const sub of this.subs) {
          if (sub.active && sub.matches(next.event.topic)) this.call(sub, next.event);
        }
        next.delivered();
      }
    } finally {
      this.draining = false;
    }
  }

  private call(sub: Subscription, event: BusEvent): void {
    try {
      const result = sub.handler(event);
      if (result instanceof Promise) result.catch((err: unknown) => this.fail(sub, event, err));
    } catch (err) {
      this.fail(sub, event, err);
    }
  }

  private fail(sub: Subscription, event: BusEvent, err: unknown): void {
    this.failures++;
    this.log.warn("event subscriber failed", { pattern: sub.pattern, topic: event.topic, seq: event.seq, error: messageOf(err) });
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
