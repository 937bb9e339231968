import type { SceneStateStore } from "@weft/agent-runtime";

/**
 * The scene's store, telling `onStored` the log's next seq after each batch of entries is written,
 * so the scene's stream can say when the timeline (and the state it led to) can be read: some log
 * entries, e.g. a finished deliberation, come with no event of their own.
 */
export function logSignalStore(inner: SceneStateStore, onStored: (nextSeq: number) => void): SceneStateStore {
  return {
    saveState: (state) => inner.saveState(state),
    loadState: (sceneId) => inner.loadState(sceneId),
    readLog: (sceneId, fromSeq) => inner.readLog(sceneId, fromSeq),
    async appendLog(sceneId, entries) {
      await inner.appendLog(sceneId, entries);
      const last = entries.at(-1);
      if (last) onStored(last.seq + 1);
    },
  };
}
