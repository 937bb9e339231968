import type { JsonObject, RunEventDraft, WorldChange, WorldStateService } from "@weft/types";
import { JsonState, type JsonStateChange } from "./json-state.ts";

export interface WorldStateOptions {
  initial?: unknown;
  /** Receives a `world.changed` event for every committed change. */
  emit?: (draft: RunEventDraft) => void;
  /** Receives every committed change (the scene log records them). */
  onChange?: (change: WorldChange) => void;
  /** How many recent changes `history()` keeps; default 200. */
  historyLimit?: number;
  clock?: () => number;
}

/** What a saved WorldState needs to continue. */
export interface WorldStateData {
  document: JsonObject;
  seq: number;
  history: WorldChange[];
}

/**
 * The JSON world every agent of a scene shares. Writes are serialised (no lost updates under
 * concurrency), each change is numbered, reported as `world.changed` and kept in a bounded history.
 */
export class WorldState implements WorldStateService {
  private readonly state: JsonState;
  private seq = 0;
  private changes: WorldChange[] = [];
  private readonly historyLimit: number;
  private readonly clock: () => number;

  constructor(private readonly options: WorldStateOptions = {}) {
    this.historyLimit = Math.max(0, options.historyLimit ?? 200);
    this.clock = options.clock ?? Date.now;
    this.state = new JsonState(options.initial ?? {}, (c) => this.commit(c));
  }

  get(path: string): unknown {
    return this.state.get(path);
  }

  set(path: string, value: unknown, agentId?: string): Promise<void> {
    return this.state.set(path, value, agentId);
  }

  delete(path: string, agentId?: string): Promise<boolean> {
    return this.state.delete(path, agentId);
  }

  update(path: string, fn: (current: unknown) => unknown, agentId?: string): Promise<unknown> {
    return this.state.update(path, fn, agentId);
  }

  snapshot(): JsonObject {
    return this.state.snapshot();
  }

  /**
   * Recent changes, oldest first (at most `historyLimit`). The changes themselves are shared, not
   * copied (a scene saves them often): each is made once at commit, holds values no document
   * references, and must not be modified.
   */
  history(): Readonly<WorldChange>[] {
    return this.changes.slice();
  }

  /** The number of the last change (0 before any). */
  get version(): number {
    return this.seq;
  }

  /** Continues from saved data: the document, the change numbering and the history. */
  load(data: WorldStateData): void {
    this.state.load(data.document);
    this.seq = data.seq;
    this.changes = this.historyLimit > 0 ? structuredClone(data.history.slice(-this.historyLimit)) : [];
  }

  private commit(c: JsonStateChange): void {
    const change: WorldChange = { seq: ++this.seq, ...c, ts: this.clock() };
    if (this.historyLimit > 0) {
      this.changes.push(change);
      if (this.changes.length > this.historyLimit) this.changes.splice(0, this.changes.length - this.historyLimit);
    }
    this.options.emit?.({ type: "world.changed", path: change.path, value: change.after ?? null, op: change.op, ...(change.agentId ? { agentId: change.agentId } : {}) });
    this.options.onChange?.(change);
  }
}
