import type { SceneLogEntry, SceneRuntimeState } from "@weft/types";

/**
 * Where a scene's state and session log are kept across restarts. The state is replaced on each
 * save; the log is only appended to. The backend implements this on its database;
 * `FileSceneStateStore` keeps them in a folder.
 *
 * A saved state and its parts are never modified afterwards (a changed part is a new object, as
 * `serializeScene` makes them): the backend's stores tell what changed since their last save by
 * comparing each mailbox and world change with the object they last wrote.
 */
export interface SceneStateStore {
  saveState(state: SceneRuntimeState): Promise<void>;
  /** The last saved state, or undefined when the scene was never saved. */
  loadState(sceneId: string): Promise<SceneRuntimeState | undefined>;
  appendLog(sceneId: string, entries: readonly SceneLogEntry[]): Promise<void>;
  /** Stored log entries with `seq >= fromSeq`, oldest first. */
  readLog(sceneId: string, fromSeq?: number): Promise<SceneLogEntry[]>;
  /**
   * Appends the entries and saves the state they lead to as one unit (a crash keeps both or
   * neither), then runs `riders` in the same transaction; without a state (nothing changed since the
   * last commit) only the riders. Stores without it get `appendLog`, then `saveState`, then the riders.
   */
  commit?(sceneId: string, entries: readonly SceneLogEntry[], state: SceneRuntimeState | undefined, riders: readonly CommitRider[]): Promise<void>;
}

/**
 * Work stored with a scene's commit, after the state it saves: an agent's conversation step, so the step and the
 * effects it saw are kept together (one transaction, where the store has them). A rider never throws (its failure
 * goes to whoever asked for it, see `ScenePersister.flushSoon`) and is atomic on its own, so one failing leaves the
 * commit and the other riders as they are. A store that drops a commit (shutting down) drops its riders with it.
 */
export type CommitRider = () => Promise<void>;
