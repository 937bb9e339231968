import type { Redis } from "ioredis";
import { z } from "zod";
import { messageOf, type Logger } from "@weft/types";
import { EventHub, isRunEnding } from "../events/event-hub.ts";
import type { EventRepository, StoredEvent } from "../events/event-repository.ts";
import { EVENTS_CHANNEL } from "./queue-names.ts";
import { MESSAGE_MAX_AGE_MS, type QueueSeal } from "./queue-seal.ts";

/**
 * What goes over Redis: which seqs are new per stream, and which of them is a run's last event (`[streamId, seq]`).
 * The events themselves stay in the shared database (what Redis readers may see is ids, not outputs): who waits only
 * for a run's end (a wait-mode webhook, a skill call) reads that one event, once per run, not each announced batch.
 */
const AnnouncementSchema = z.object({
  origin: z.string(),
  streams: z.array(z.tuple([z.string(), z.number().int(), z.number().int()])),
  endings: z.array(z.tuple([z.string(), z.number().int()])).default([]),
});
type Announcement = z.input<typeof AnnouncementSchema>;

/**
 * The event hub of a process in the queue mode: besides delivering its own persisted events to its
 * own subscribers, it announces them on Redis so every other API process can deliver them too.
 * The journal publishes only after storing, so an announced seq is always readable.
 */
export class RelayingEventHub extends EventHub {
  constructor(
    /** This process, so it ignores its own announcements. */
    readonly origin: string,
    private readonly redis: Redis,
    /** Seals each announcement: the relays of other processes ignore unsealed ones. */
    readonly seal: QueueSeal,
    private readonly log: Logger,
  ) {
    super();
  }

  override publish(events: StoredEvent[]): void {
    super.publish(events);
    if (events.length === 0) return;
    const range = new Map<string, [number, number]>();
    for (const e of events) {
      const r = range.get(e.streamId);
      if (r) r[1] = Math.max(r[1], e.seq);
      else range.set(e.streamId, [e.seq, e.seq]);
    }
    const endings = events.filter(isRunEnding).map((e): [string, number] => [e.streamId, e.seq]);
    const announcement: Announcement = { origin: this.origin, streams: [...range].map(([id, [first, last]]) => [id, first, last]), endings };
    // A lost announcement costs only latency: subscribers catch up from storage on the next one, or on resubscribe.
    this.redis.publish(EVENTS_CHANNEL, this.seal.wrap(EVENTS_CHANNEL, announcement)).catch((error: unknown) => this.log.warn("announcing events failed", { error: messageOf(error) }));
  }

  /** Events another process stored and announced: delivered to this process's subscribers only, not to its taps, not announced again. */
  deliverRelayed(events: StoredEvent[]): void {
    // Not `publish`: the taps (metrics) count only what this process stored; the writer counted these.
    this.deliver(events);
  }

  /** That a run ended, as another process announced it: to this process's `subscribeEnded` listeners (nothing read). */
  deliverRelayedEnded(streamId: string): void {
    this.deliverEnded(streamId);
  }

  /** A run's last event another process stored and announced: to this process's `subscribeEnding` listeners. */
  deliverRelayedEnding(event: StoredEvent): void {
    this.deliverEnding(event);
  }
}

interface Following {
  /** Highest seq handed to the hub. */
  delivered: number;
  /** Highest seq announced. */
  target: number;
  reading: boolean;
}

/**
 * Listens for other processes' announcements and, for streams somebody here follows, reads the new
 * events from storage and hands them to the hub. Order, gaps and duplicates are the subscriptions'
 * business (`StreamSubscription` skips what it sent and reads storage when a seq is missing), so a
 * lost or late announcement delays events but never loses or repeats one.
 */
export class EventRelay {
  private readonly streams = new Map<string, Following>();
  private stopped = false;

  constructor(
    private readonly hub: RelayingEventHub,
    private readonly events: EventRepository,
    /** A connection of its own: in subscriber mode Redis takes no other commands. */
    private readonly subscriber: Redis,
    private readonly log: Logger,
    private readonly pageSize = 500,
  ) {}

  async start(): Promise<void> {
    this.subscriber.on("message", (channel: string, text: string) => {
      if (channel === EVENTS_CHANNEL) this.onAnnouncement(text);
    });
    await this.subscriber.subscribe(EVENTS_CHANNEL);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscriber.quit().catch(() => undefined);
  }

  private onAnnouncement(text: string): void {
    // Unsealed, forged or replayed: dropped before it costs a read of storage.
    const announcement = this.hub.seal.unwrap(EVENTS_CHANNEL, text, AnnouncementSchema, "an event announcement", { maxAgeMs: MESSAGE_MAX_AGE_MS, once: true });
    if (!announcement || announcement.origin === this.hub.origin || this.stopped) return;
    for (const [streamId, seq] of announcement.endings) {
      // Who waits only for the end is told at once; the event is read only for who wants it.
      this.hub.deliverRelayedEnded(streamId);
      if (this.hub.endingEventListenerCount(streamId) > 0) void this.readEnding(streamId, seq);
    }
    for (const [streamId, first, last] of announcement.streams) {
      if (this.hub.listenerCount(streamId) === 0) continue;
      let following = this.streams.get(streamId);
      if (!following) this.streams.set(streamId, (following = { delivered: first - 1, target: last, reading: false }));
      following.target = Math.max(following.target, last);
      if (!following.reading) void this.pump(streamId, following);
    }
  }

  /** A run's announced last event, read for those waiting for it. */
  private async readEnding(streamId: string, seq: number): Promise<void> {
    try {
      const [event] = await this.events.listAfter(streamId, seq - 1, 1);
      if (event?.seq === seq) this.hub.deliverRelayedEnding(event);
    } catch (error) {
      this.log.warn("reading a relayed run ending failed", { streamId, error: messageOf(error) });
    }
  }

  private async pump(streamId: string, following: Following): Promise<void> {
    following.reading = true;
    try {
      while (!this.stopped && following.delivered < following.target && this.hub.listenerCount(streamId) > 0) {
        const page = await this.events.listAfter(streamId, following.delivered, this.pageSize);
        if (page.length === 0) break;
        this.hub.deliverRelayed(page);
        following.delivered = page[page.length - 1].seq;
      }
    } catch (error) {
      this.log.warn("reading relayed events failed", { streamId, error: messageOf(error) });
    } finally {
      following.reading = false;
      // Forgotten once caught up, so streams nobody follows any more cost nothing; the next announcement starts over.
      if (following.delivered >= following.target || this.hub.listenerCount(streamId) === 0) this.streams.delete(streamId);
    }
  }
}
