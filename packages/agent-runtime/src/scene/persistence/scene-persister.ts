import { silentLogger, type Logger, type SceneLogEntry, type SceneRuntimeState } from "@weft/types";
import type { SceneStateStore } from "./scene-state-store.ts";

/**
 * Writes a scene to its store in the background: new log entries are appended, then the state is
 * saved. Saves never overlap; changes made during a save cause one more save after it. Entries a
 * failed append could not write stay buffered for the next attempt, so nothing is lost.
 */
export class ScenePersister {
  private buffer: SceneLogEntry[] = [];
  private loop: Promise<void> | null = null;
  private dirty = false;
  private lastError: unknown = null;

  constructor(
    private readonly store: SceneStateStore,
    private readonly sceneId: string,
    private readonly snapshot: () => SceneRuntimeState,
    private readonly log: Logger = silentLogger,
  ) {}

  add(entry: SceneLogEntry): void {
    this.buffer.push(entry);
    this.schedule();
  }

  schedule(): void {
    this.dirty = true;
    if (this.loop) return;
    this.loop = this.run().finally(() => {
      this.loop = null;
    });
  }

  /** Saves everything changed so far; rejects with the store's error if the last save failed. */
  async flush(): Promise<void> {
    this.schedule();
    while (this.loop) await this.loop;
    if (this.lastError) throw this.lastError;
  }

  private async run(): Promise<void> {
    while (this.dirty) {
      this.dirty = false;
      // Taken together, so a saved state never runs ahead of the log entries written before it.
      const entries = this.buffer.splice(0);
      const state = this.snapshot();
      try {
        await this.store.appendLog(this.sceneId, entries);
      } catch (err) {
        this.buffer.unshift(...entries);
        return this.failed(err);
      }
      try {
        await this.store.saveState(state);
      } catch (err) {
        return this.failed(err);
      }
      this.lastError = null;
    }
  }

  private failed(err: unknown): void {
    this.lastError = err;
    this.log.warn("saving the scene failed; will retry on the next change", { sceneId: this.sceneId, error: err instanceof Error ? err.message : String(err) });
  }
}
