import type { CommitRider, SceneStateStore } from "@weft/agent-runtime";
import type { SceneStore } from "./scene-store.ts";
import type { SceneLogEntry, SceneRuntimeState } from "@weft/types";
import type { HeldStream } from "../events/event-journal.ts";

export interface LogSignalOptions {
  /** Hears the log's next seq after each batch of entries is written. */
  onStored: (nextSeq: number) => void;
  /** False once the session was unloaded: writes are dropped then. */
  accepts: () => boolean;
  /** True when the session was unloaded to be continued elsewhere: its last held events are dropped, as when the store is frozen. */
  frozen?: () => boolean;
  /** The scene's stream, held by the journal: its events are stored in each commit's transaction. */
  events: HeldStream;
}

/**
 * The store as one loaded session of a scene uses it. Writes are dropped once `accepts()` is false
 * (the session was unloaded: its scene deleted, or a new session started), so a runtime winding down
 * cannot write into what came after it. The scene's events are held by the journal and stored in
 * the same transaction as the log entries and state they lead to (cut when the state's snapshot is
 * taken), so after a crash the stream holds exactly the changes the saved state has: none lost,
 * none that a resumed deliberation would make again. With each commit `onStored` hears the log's
 * next seq (its event is stored in that transaction too), so the scene's stream can say when the
 * timeline (and the state it led to) can be read: some log entries, e.g. a finished deliberation,
 * come with no event of their own. A stopped session's stream is released to the journal's flushes.
 */
export function logSignalStore(inner: SceneStore, options: LogSignalOptions): SceneStateStore {
  const { onStored, accepts, frozen, events } = options;
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
    async commit(sceneId: string, entries: readonly SceneLogEntry[], state: SceneRuntimeState | undefined, riders: readonly CommitRider[]) {
      // Called right after the snapshot was taken: the events held so far are those this state has seen.
      if (accepts()) signal(entries);
      const write = events.cut();
      if (!accepts()) {
        // The riders (conversation steps) are dropped with the state: a step is kept only with the effects it saw.
        // Shutting down (the store is frozen): the saved state stays what it was, and so does the stream.
        if (inner.isFrozen() || frozen?.()) return events.discard();
        // An unloaded session's last events are stored all the same, so the stream has no gap.
        events.release();
        await write(async () => undefined);
        return;
      }
      await write(async () => {
        if (!accepts()) return;
        // Without a state nothing changed since the last commit: only the riders.
        if (state) await inner.commit(sceneId, entries, state);
        for (const ride of riders) await ride();
      });
      if (state?.status === "stopped") events.release();
    },
  };
}
