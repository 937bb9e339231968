import type { SceneStateStore } from "@weft/agent-runtime";

/**
 * The store as one loaded session of a scene uses it. Writes are dropped once `accepts()` is false
 * (the session was unloaded: its scene deleted, or a new session started), so a runtime winding down
 * cannot write into what came after it. After each batch of log entries is written `onStored` hears
 * the log's next seq, so the scene's stream can say when the timeline (and the state it led to) can
 * be read: some log entries, e.g. a finished deliberation, come with no event of their own.
 */
export function logSignalStore(inner: SceneStateStore, onStored: (nextSeq: number) => void, accepts: () => boolean): SceneStateStore {
  return {
    saveState: async (state) => {
      if (accepts()) await inner.saveState(state);
    },
    loadState: (sceneId) => inner.loadState(sceneId),
    readLog: (sceneId, fromSeq) => inner.readLog(sceneId, fromSeq),
    async appendLog(sceneId, entries) {
      if (!accepts()) return;
      await inner.appendLog(sceneId, entries);
      const last = entries.at(-1);
      if (last) onStored(last.seq + 1);
    },
  };
}
