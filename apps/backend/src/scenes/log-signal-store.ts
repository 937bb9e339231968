import type { SceneStateStore } from "@weft/agent-runtime";
import type { SceneLogEntry, SceneRuntimeState } from "@weft/types";

export interface LogSignalOptions {
  /** Hears the log's next seq after each batch of entries is written. */
  onStored: (nextSeq: number) => void;
  /** False once the session was unloaded: writes are dropped then. */
  accepts: () => boolean;
  /** Stores the events emitted so far (the journal's flush); runs before each commit of log and state. */
  storeEvents: () => Promise<void>;
}

/**
 * The store as one loaded session of a scene uses it. Writes are dropped once `accepts()` is false
 * (the session was unloaded: its scene deleted, or a new session started), so a runtime winding down
 * cannot write into what came after it. The scene's events are stored before the log and state
 * they announce, so after a crash the stream holds every change the saved state has. After each
 * batch of log entries is written `onStored` hears the log's next seq, so the scene's stream can say
 * when the timeline (and the state it led to) can be read: some log entries, e.g. a finished
 * deliberation, come with no event of their own.
 */
export function logSignalStore(inner: SceneStateStore, options: LogSignalOptions): SceneStateStore {
  const { onStored, accepts, storeEvents } = options;
  const signal = (entries: readonly SceneLogEntry[]) => {
    const last = entries.at(-1);
    if (last) onStored(last.seq + 1);
  };
  return {
    saveState: async (state) => {
      if (accepts()) await inner.saveState(state);
    },
    loadState: (sceneId) => inner.loadState(sceneId),
    readLog: (sceneId, fromSeq) => inner.readLog(sceneId, fromSeq),
    async appendLog(sceneId, entries) {
      if (!accepts()) return;
      await inner.appendLog(sceneId, entries);
      signal(entries);
    },
    async commit(sceneId: string, entries: readonly SceneLogEntry[], state: SceneRuntimeState) {
      if (!accepts()) return;
      await storeEvents();
      if (!accepts()) return;
      if (inner.commit) await inner.commit(sceneId, entries, state);
      else {
        await inner.appendLog(sceneId, entries);
        await inner.saveState(state);
      }
      signal(entries);
    },
  };
}
