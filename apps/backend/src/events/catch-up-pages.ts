import { LRUCache } from "lru-cache";
import type { EventRepository } from "./event-repository.ts";
import { eventMessage } from "./ws-protocol.ts";
import { previewEventJson } from "./large-values.ts";

/** A stream's stored events as a subscriber sends them: each one's seq and its message. */
export type CatchUpPage = readonly { seq: number; message: string }[];

/** Bounds of the shared pages: their messages' total length, and how long one is kept after its read. */
export interface CatchUpPageLimits {
  maxChars: number;
  ttlMs: number;
}

/**
 * Pages of stored events as catching-up subscribers send them, read and built once for every subscriber of the same
 * stream: when several clients open a run (a team watching it, a second tab), each page costs one storage read and one
 * message per event, not one per client. Only full pages are kept: a stream's seqs are never reused, so a full page
 * is final, where a short one may still grow. Kept briefly (`ttlMs`): clients catching up together share; a page
 * retention deletes afterwards is not served from here beyond that.
 */
export class CatchUpPages {
  private readonly kept: LRUCache<string, CatchUpPage>;
  private readonly reading = new Map<string, Promise<CatchUpPage>>();

  constructor(
    private readonly events: Pick<EventRepository, "listAfter">,
    limits: CatchUpPageLimits,
  ) {
    this.kept = new LRUCache<string, CatchUpPage>({
      maxSize: limits.maxChars,
      ttl: limits.ttlMs,
      // Dropped when they expire (an unreferenced timer each), not when next touched: a past burst holds no memory.
      ttlAutopurge: true,
      sizeCalculation: (page) =>
        Math.max(
          1,
          page.reduce((n, e) => n + e.message.length, 0),
        ),
    });
  }

  /** The events of `streamId` after seq `after`, at most `limit`, in seq order. */
  async read(streamId: string, after: number, limit: number): Promise<CatchUpPage> {
    const key = `${streamId}\n${after}\n${limit}`;
    const kept = this.kept.get(key);
    if (kept !== undefined) return kept;
    let pending = this.reading.get(key);
    if (pending === undefined) {
      pending = this.load(key, streamId, after, limit).finally(() => this.reading.delete(key));
      this.reading.set(key, pending);
    }
    return await pending;
  }

  private async load(key: string, streamId: string, after: number, limit: number): Promise<CatchUpPage> {
    const events = await this.events.listAfter(streamId, after, limit);
    const page = events.map((event) => ({ seq: event.seq, message: eventMessage(previewEventJson(event.json)) }));
    if (page.length === limit) this.kept.set(key, page);
    return page;
  }
}
