import type { SceneLogDraft, SceneLogEntry } from "@weft/types";

export interface SceneLogOptions {
  /** How many recent entries stay in memory (the store keeps them all); default 10,000. */
  retain?: number;
  clock?: () => number;
}

/**
 * The ordered record of a scene session: every trigger, event, state change and status change,
 * numbered from 0. Listeners (the persister, a live view) see each entry as it is appended.
 */
export class SceneLog {
  private items: SceneLogEntry[] = [];
  private next = 0;
  private readonly listeners = new Set<(entry: SceneLogEntry) => void>();
  private readonly retain: number;
  private readonly clock: () => number;

  constructor(options: SceneLogOptions = {}) {
    this.retain = Math.max(1, options.retain ?? 10_000);
    this.clock = options.clock ?? Date.now;
  }

  append(draft: SceneLogDraft): SceneLogEntry {
    const entry = { ...draft, seq: this.next++, ts: this.clock() } as SceneLogEntry;
    this.items.push(entry);
    if (this.items.length > this.retain) this.items.splice(0, this.items.length - this.retain);
    for (const listener of this.listeners) listener(entry);
    return entry;
  }

  /** Entries still in memory with `seq >= fromSeq`, oldest first. */
  entries(fromSeq = 0): SceneLogEntry[] {
    const first = this.items.findIndex((e) => e.seq >= fromSeq);
    return first < 0 ? [] : this.items.slice(first);
  }

  onAppend(listener: (entry: SceneLogEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The number the next entry gets. */
  get nextSeq(): number {
    return this.next;
  }

  /** Continues numbering after a restore (the earlier entries live in the store). */
  resumeAt(nextSeq: number): void {
    this.next = nextSeq;
  }
}
