import { z } from "zod";
import type { SceneStateStore } from "@weft/agent-runtime";
import { messageOf, type SceneLogEntry, type SceneRuntimeState } from "@weft/types";

/** Which conversation each agent instance of a scene's current session talks in. */
export const SceneSessionSchema = z.object({
  sessionId: z.string(),
  startedAt: z.number(),
  conversations: z.record(z.string(), z.string()),
  /** The user who started the session: the runs its agents cause name them (`createdBy`), after a restart too. */
  startedBy: z.string().optional(),
});
export type SceneSession = z.infer<typeof SceneSessionSchema>;

/**
 * Scenes' runtime state, session logs and sessions in the server's database, on the storage's
 * connection (writes join `Storage.transaction`). The state is replaced on each save (in parts: only
 * what changed is written, see scene-state-store-parts.ts); a log entry
 * already stored under its number is kept as it is (a retried append cannot duplicate or reorder
 * entries); `commit` stores entries and the state they lead to in one transaction.
 */
export interface SceneStore extends SceneStateStore {
  /** Ignores every later write: on shutdown the saved state must stay what it was while the scene ran. */
  freeze(): void;
  isFrozen(): boolean;
  /** Appends the entries and saves the state they lead to, in one transaction (the caller's, when one is open). */
  commit(sceneId: string, entries: readonly SceneLogEntry[], state: SceneRuntimeState): Promise<void>;
  /** Stored entries with `seq >= fromSeq`, oldest first, at most `limit` (all by default). */
  readLog(sceneId: string, fromSeq?: number, limit?: number): Promise<SceneLogEntry[]>;
  saveSession(sceneId: string, session: SceneSession): Promise<void>;
  loadSession(sceneId: string): Promise<SceneSession | undefined>;
  /** Scenes with a saved state, and the status they were saved in, by scene id. */
  savedStatuses(): Promise<Array<{ sceneId: string; status: string }>>;
  /** Forgets a scene's state and log (a new session starts from the definition). */
  clear(sceneId: string): Promise<void>;
  /** Forgets everything of a deleted scene: state, log and session. */
  forget(sceneId: string): Promise<void>;
}

/** A stored scene row that no longer fits its schema: reported, never silently dropped. */
export class StoredSceneInvalidError extends Error {
  readonly code = "STORED_RECORD_INVALID";
}

export function parseStored<S extends z.ZodType>(schema: S, text: string, what: string): z.output<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new StoredSceneInvalidError(`The stored ${what} is not valid JSON (${messageOf(error)}); it was left as it is.`);
  }
  return checkStored(schema, raw, what);
}

/** `raw` (read from a stored row) checked against its schema. */
export function checkStored<S extends z.ZodType>(schema: S, raw: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StoredSceneInvalidError(`The stored ${what} does not fit its format at ${issue?.path.join(".") || "(root)"}: ${issue?.message}; it was left as it is.`);
  }
  return parsed.data;
}
