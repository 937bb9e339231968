import { silentLogger, type Logger, type SceneLogEntry, type SceneRuntimeState, messageOf } from "@weft/types";
import type { CommitRider, SceneStateStore } from "./scene-state-store.ts";

/** How long changes gather before they are written together; `flush()` writes at once. */
export const DEFAULT_PERSIST_EVERY_MS = 100;

/**
 * How long `flushSoon()` waits for others to ask too. An agent's conversation write goes with the scene's commit
 * of what came before it; one commit a write (its snapshot, its state parts, its transaction) was the largest
 * single cost of an agent step, and agents finishing together can share one.
 */
export const DEFAULT_GATHER_MS = 5;

/**
 * `flushSoon()` writes no sooner than this after the last write began. A commit costs mostly the pages it touches
 * (each agent's conversation, each run's events, whatever it holds), so in a busy scene fewer, larger commits cost
 * less per step: at 50 agents a commit every 20 ms wrote 13 pages per step to SQLite's WAL where one every ~7 ms
 * wrote 21. A scene whose last write is older waits only `gatherMs`.
 */
export const DEFAULT_WRITE_SPACING_MS = 20;

/**
 * Writes a scene to its store in the background: the log entries gathered over `everyMs` are
 * appended together with the state they lead to (one store commit), so a busy scene costs one
 * state save per interval rather than one per change, and the saved state never runs ahead of or
 * behind its log. Saves never overlap. Entries a failed write could not store stay buffered for the
 * next attempt, so nothing is lost.
 */
export class ScenePersister {
  private buffer: SceneLogEntry[] = [];
  private loop: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private dirty = false;
  private lastError: unknown = null;
  private gathering: Promise<void> | null = null;
  private riders: Rider[] = [];
  private lastWriteAt = -Infinity;

  constructor(
    private readonly store: SceneStateStore,
    private readonly sceneId: string,
    private readonly snapshot: () => SceneRuntimeState,
    private readonly log: Logger = silentLogger,
    private readonly everyMs = DEFAULT_PERSIST_EVERY_MS,
    private readonly gatherMs = DEFAULT_GATHER_MS,
    private readonly spacingMs = DEFAULT_WRITE_SPACING_MS,
  ) {}

  add(entry: SceneLogEntry): void {
    this.buffer.push(entry);
    this.schedule();
  }

  /** Marks the state changed; it is written within `everyMs`. */
  schedule(): void {
    this.dirty = true;
    if (this.loop || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.start();
    }, this.everyMs);
  }

  /**
   * Saves everything changed so far; rejects with the store's error if the last save failed. Nothing
   * changed since the last save: nothing is written (timeline reads and each conversation write call this).
   */
  async flush(): Promise<void> {
    // A write under way took its snapshot before this call: wait for it, then write once more if changes came meanwhile.
    if (this.loop) await this.loop;
    if (!this.due) {
      if (this.lastError) throw this.lastError;
      return;
    }
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.start();
    await this.loop;
    if (this.lastError) throw this.lastError;
  }

  /**
   * `flush()` after waiting `gatherMs` (longer while the last write is under `spacingMs` old), so callers asking
   * within that time share one write. Like `flush()`, it resolves once everything changed before the call is saved
   * (the write starts after the wait). `work` is stored with that write, after it (`CommitRider`): the answer is
   * then its outcome, or the write's failure.
   */
  flushSoon(work?: () => Promise<void>): Promise<void> {
    this.gathering ??= new Promise<void>((resolve) => setTimeout(resolve, Math.max(this.gatherMs, this.lastWriteAt + this.spacingMs - Date.now()))).then(() => {
      this.gathering = null;
      return this.flush();
    });
    if (!work) return this.gathering;
    // Its rider's outcome answers the caller; a failed write reaches it through `run`.
    this.gathering.catch(() => undefined);
    return new Promise<void>((resolve, reject) => this.riders.push({ work, resolve, reject, failed: false, error: undefined }));
  }

  private get due(): boolean {
    return this.dirty || this.riders.length > 0;
  }

  private start(): void {
    if (this.loop) return;
    this.loop = this.run().finally(() => {
      this.loop = null;
      // Changes made during the last write wait for the next interval.
      if (this.dirty && !this.lastError) this.schedule();
    });
  }

  private async run(): Promise<void> {
    if (!this.due) return;
    this.lastWriteAt = Date.now();
    // Nothing changed since the last write: only riders (a session save after a step), no snapshot to take.
    const changed = this.dirty;
    this.dirty = false;
    // Taken together, so a saved state never runs ahead of the log entries written before it.
    const entries = this.buffer.splice(0);
    const riders = this.riders.splice(0);
    const state = changed ? this.snapshot() : undefined;
    const rides: CommitRider[] = riders.map((rider) => async () => {
      try {
        await rider.work();
      } catch (error) {
        rider.failed = true;
        rider.error = error;
      }
    });
    try {
      if (this.store.commit) await this.store.commit(this.sceneId, entries, state, rides);
      else {
        if (state) {
          await this.store.appendLog(this.sceneId, entries);
          entries.length = 0;
          await this.store.saveState(state);
        }
        for (const ride of rides) await ride();
      }
    } catch (err) {
      this.buffer.unshift(...entries);
      this.dirty ||= changed;
      for (const rider of riders) rider.reject(err);
      return this.failed(err);
    }
    this.lastError = null;
    for (const rider of riders) {
      if (rider.failed) rider.reject(rider.error);
      else rider.resolve();
    }
  }

  private failed(err: unknown): void {
    this.lastError = err;
    this.log.warn("saving the scene failed; will retry on the next change", { sceneId: this.sceneId, error: messageOf(err) });
  }
}

/** Work waiting for the next write (`flushSoon`), and how to answer its caller. */
interface Rider {
  work: () => Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
  failed: boolean;
  error: unknown;
}
