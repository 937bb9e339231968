import type { StoredEvent } from "./event-repository.ts";
import type { EventHub } from "./event-hub.ts";
import type { CatchUpPages } from "./catch-up-pages.ts";
import { eventMessage } from "./ws-protocol.ts";
import { previewEventJson } from "./large-values.ts";

/** The part of a client connection a subscription writes to. */
export interface MessageSink {
  /** False when the message could not be queued at all (the connection is unusable). */
  send(message: string): boolean;
  /** True while the socket holds more unsent data than it should: stop sending until it drains. */
  congested(): boolean;
  /** Runs `work`, whose sends leave the socket together, and returns what it returns. */
  together<T>(work: () => T): T;
}

export interface SubscriptionLimits {
  /** Events read from storage per step while catching up. */
  pageSize: number;
  /** Live events held for a congested client before it is told to resync. */
  maxQueuedEvents: number;
}

/**
 * Delivers one stream to one client, in seq order, without gaps or duplicates.
 *
 * It listens to the hub from the start. While catching up it reads pages from storage and only
 * notes the highest live seq it heard of: every published event is already persisted, so the next
 * read will return it. It goes live once a short page came back and nothing newer was heard — the
 * switch is synchronous with that check, so no event can fall between storage and live delivery.
 */
export class StreamSubscription {
  /** Highest seq sent or queued. */
  private cursor: number;
  /** Highest seq handed to the socket. */
  private delivered: number;
  private mode: "catch-up" | "live" = "catch-up";
  private heardUpTo = -1;
  private reading = false;
  private closed = false;
  private queue: { seq: number; message: string }[] = [];
  private queueHead = 0;
  private readonly unlisten: () => void;

  constructor(
    readonly streamId: string,
    after: number,
    private readonly sink: MessageSink,
    private readonly pages: Pick<CatchUpPages, "read">,
    hub: EventHub,
    private readonly limits: SubscriptionLimits,
    private readonly onOverflow: (subscription: StreamSubscription, lastDelivered: number, waiting: number) => void,
    private readonly onFailure: (subscription: StreamSubscription, error: unknown) => void,
  ) {
    this.cursor = after;
    this.delivered = after;
    this.unlisten = hub.subscribe(streamId, (batch) => this.onLive(batch));
  }

  get lastDelivered(): number {
    return this.delivered;
  }

  stop(): void {
    this.closed = true;
    this.queue = [];
    this.unlisten();
  }

  /** Sends what it can now; called on start and whenever the socket drains. */
  pump(): void {
    if (this.closed) return;
    if (this.mode === "catch-up") void this.catchUp();
    else this.sendQueued();
  }

  private async catchUp(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      while (!this.closed && this.mode === "catch-up") {
        if (this.sink.congested()) return;
        const page = await this.pages.read(this.streamId, this.cursor, this.limits.pageSize);
        if (this.closed) return;
        const sent = this.sink.together(() => {
          for (const event of page) {
            if (!this.sink.send(event.message)) return false;
            this.cursor = this.delivered = event.seq;
          }
          return true;
        });
        if (!sent) return;
        if (page.length < this.limits.pageSize && this.heardUpTo <= this.cursor) this.mode = "live";
      }
    } catch (error) {
      this.onFailure(this, error);
    } finally {
      this.reading = false;
    }
  }

  private onLive(batch: StoredEvent[]): void {
    if (this.closed) return;
    this.sink.together(() => this.deliverLive(batch));
  }

  private deliverLive(batch: StoredEvent[]): void {
    const last = batch[batch.length - 1].seq;
    if (this.mode === "catch-up") {
      this.heardUpTo = Math.max(this.heardUpTo, last);
      return;
    }
    for (const event of batch) {
      if (event.seq <= this.cursor) continue;
      if (event.seq !== this.cursor + 1) {
        // Something is missing after what was sent: drop the queue and read from storage instead.
        this.queue = [];
        this.queueHead = 0;
        this.cursor = this.delivered;
        this.mode = "catch-up";
        this.heardUpTo = Math.max(this.heardUpTo, last);
        this.pump();
        return;
      }
      this.cursor = event.seq;
      const message = eventMessage(previewEventJson(event.json));
      if (this.queue.length === this.queueHead && !this.sink.congested()) {
        if (!this.sink.send(message)) return;
        this.delivered = event.seq;
        continue;
      }
      this.queue.push({ seq: event.seq, message });
      const waiting = this.queue.length - this.queueHead;
      if (waiting > this.limits.maxQueuedEvents) {
        this.onOverflow(this, this.delivered, waiting);
        return;
      }
    }
  }

  private sendQueued(): void {
    this.sink.together(() => this.sendQueuedNow());
  }

  private sendQueuedNow(): void {
    while (this.queueHead < this.queue.length && !this.sink.congested()) {
      const item = this.queue[this.queueHead++];
      if (!this.sink.send(item.message)) return;
      this.delivered = item.seq;
    }
    if (this.queueHead === this.queue.length) {
      this.queue = [];
      this.queueHead = 0;
    } else if (this.queueHead > 1024) {
      this.queue = this.queue.slice(this.queueHead);
      this.queueHead = 0;
    }
  }
}
