import type { StoredEvent } from "./event-repository.ts";

export type EventListener = (events: StoredEvent[]) => void;
export type EndingListener = (event: StoredEvent) => void;
/** Told only that a run ended (its stream id), not its last event. */
export type EndedListener = (streamId: string) => void;

/** The types of a run's last event. */
const RUN_ENDING_TYPES: ReadonlySet<string> = new Set(["run.completed", "run.failed", "run.cancelled"]);
export const isRunEnding = (event: StoredEvent): boolean => RUN_ENDING_TYPES.has(event.type);

/** Adds `listener` to `streamId`'s set; the returned function removes it, and the set once empty (so a stream no one follows costs nothing). */
function addTo<L>(sets: Map<string, Set<L>>, streamId: string, listener: L): () => void {
  let set = sets.get(streamId);
  if (!set) sets.set(streamId, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0) sets.delete(streamId);
  };
}

/** In-process fan-out of events that are already persisted, by stream. */
export class EventHub {
  private readonly listeners = new Map<string, Set<EventListener>>();
  private readonly taps = new Set<EventListener>();
  private readonly enders = new Map<string, Set<EndingListener>>();
  private readonly enderIds = new Map<string, Set<EndedListener>>();

  /** Every batch this process stores (`publish`), whatever its streams (metrics); called after the streams' own listeners. */
  tap(listener: EventListener): () => void {
    this.taps.add(listener);
    return () => {
      this.taps.delete(listener);
    };
  }

  subscribe(streamId: string, listener: EventListener): () => void {
    return addTo(this.listeners, streamId, listener);
  }

  /**
   * Only a run's last event (`run.completed`, `run.failed`, `run.cancelled`). Who waits for a run's end follows
   * nothing else: in queue mode the ending comes with the writer's announcement, so the relay reads none of the
   * run's other events for it (`../queue/event-relay.ts`).
   */
  subscribeEnding(streamId: string, listener: EndingListener): () => void {
    return addTo(this.enders, streamId, listener);
  }

  /**
   * Only that a run ended, not its last event: for who reads the ended run's record anyway (an eval run's cases, read
   * in bulk). In queue mode the relay then reads nothing from storage for it, the announcement says enough.
   */
  subscribeEnded(streamId: string, listener: EndedListener): () => void {
    return addTo(this.enderIds, streamId, listener);
  }

  /** Events this process stored, of one or more streams, each stream's in seq order: to the streams' listeners, then the taps. */
  publish(events: StoredEvent[]): void {
    this.deliver(events);
    if (events.length === 0) return;
    if (this.enders.size > 0 || this.enderIds.size > 0) {
      for (const e of events) {
        if (!isRunEnding(e)) continue;
        this.deliverEnding(e);
        this.deliverEnded(e.streamId);
      }
    }
    for (const tap of this.taps) tap(events);
  }

  /** A run's last event to those waiting for it (`subscribeEnding`) only. */
  protected deliverEnding(event: StoredEvent): void {
    const set = this.enders.get(event.streamId);
    if (set) for (const listener of [...set]) listener(event);
  }

  /** That a run ended to those waiting for that only (`subscribeEnded`). */
  protected deliverEnded(streamId: string): void {
    const set = this.enderIds.get(streamId);
    if (set) for (const listener of [...set]) listener(streamId);
  }

  /** Who waits for the run's end, either kind. */
  endingListenerCount(streamId: string): number {
    return (this.enders.get(streamId)?.size ?? 0) + (this.enderIds.get(streamId)?.size ?? 0);
  }

  /** Who waits for the run's last event itself (`subscribeEnding`): the relay reads it from storage only for them. */
  endingEventListenerCount(streamId: string): number {
    return this.enders.get(streamId)?.size ?? 0;
  }

  /**
   * To the streams' listeners only, not the taps: for events another process stored and announced
   * (the queue mode's relay), which that process's own taps (metrics) already counted.
   */
  protected deliver(events: StoredEvent[]): void {
    if (events.length === 0) return;
    const byStream = new Map<string, StoredEvent[]>();
    for (const e of events) {
      let list = byStream.get(e.streamId);
      if (!list) byStream.set(e.streamId, (list = []));
      list.push(e);
    }
    for (const [streamId, list] of byStream) {
      const set = this.listeners.get(streamId);
      if (!set) continue;
      for (const listener of [...set]) listener(list);
    }
  }

  listenerCount(streamId: string): number {
    return this.listeners.get(streamId)?.size ?? 0;
  }
}
