import type { Database, Statement } from "bun:sqlite";
import { z } from "zod";
import type { SceneStateStore } from "@weft/agent-runtime";
import { SceneLogEntrySchema, SceneRuntimeStateSchema, type SceneLogEntry, type SceneRuntimeState, messageOf } from "@weft/types";
import type { Storage } from "../storage/storage.ts";
import { requireSqlite } from "../storage/sql-handle.ts";

/** Which conversation each agent instance of a scene's current session talks in. */
export const SceneSessionSchema = z.object({
  sessionId: z.string(),
  startedAt: z.number(),
  conversations: z.record(z.string(), z.string()),
});
export type SceneSession = z.infer<typeof SceneSessionSchema>;

/** A stored scene row that no longer fits its schema: reported, never silently dropped. */
export class StoredSceneInvalidError extends Error {
  readonly code = "STORED_RECORD_INVALID";
}

function parseStored<S extends z.ZodType>(schema: S, text: string, what: string): z.output<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new StoredSceneInvalidError(`The stored ${what} is not valid JSON (${messageOf(error)}); it was left as it is.`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StoredSceneInvalidError(`The stored ${what} does not fit its format at ${issue?.path.join(".") || "(root)"}: ${issue?.message}; it was left as it is.`);
  }
  return parsed.data;
}

/**
 * Scenes' runtime state and session logs, on the server storage's connection (its writes join the
 * storage's transactions). A log append is one transaction, and an entry already stored under its
 * number is kept as it is (a retried append after a partial failure cannot duplicate or reorder entries).
 */
export class SqliteSceneStateStore implements SceneStateStore {
  private frozen = false;
  private readonly q: {
    saveState: Statement<unknown, [string, string, string, number]>;
    loadState: Statement<{ data: string }, [string]>;
    appendLog: Statement<unknown, [string, number, string, string]>;
    readLog: Statement<{ data: string }, [string, number, number]>;
    saveSession: Statement<unknown, [string, string, number]>;
    loadSession: Statement<{ data: string }, [string]>;
    statuses: Statement<{ scene_id: string; status: string }, []>;
  };
  private readonly clearLog: Statement<unknown, [string]>;
  private readonly clearState: Statement<unknown, [string]>;
  private readonly clearSession: Statement<unknown, [string]>;

  private readonly db: Database;

  constructor(private readonly storage: Pick<Storage, "sql" | "redactor">) {
    const { db } = requireSqlite(storage.sql, "The scene state store");
    this.db = db;
    this.q = {
      saveState: db.query(
        "INSERT INTO scene_states (scene_id, status, data, saved_at) VALUES (?, ?, ?, ?) ON CONFLICT (scene_id) DO UPDATE SET status = excluded.status, data = excluded.data, saved_at = excluded.saved_at",
      ),
      loadState: db.query("SELECT data FROM scene_states WHERE scene_id = ?"),
      appendLog: db.query("INSERT OR IGNORE INTO scene_log (scene_id, seq, kind, data) VALUES (?, ?, ?, ?)"),
      readLog: db.query("SELECT data FROM scene_log WHERE scene_id = ? AND seq >= ? ORDER BY seq LIMIT ?"),
      saveSession: db.query("INSERT INTO scene_sessions (scene_id, data, started_at) VALUES (?, ?, ?) ON CONFLICT (scene_id) DO UPDATE SET data = excluded.data, started_at = excluded.started_at"),
      loadSession: db.query("SELECT data FROM scene_sessions WHERE scene_id = ?"),
      statuses: db.query("SELECT scene_id, status FROM scene_states ORDER BY scene_id"),
    };
    this.clearLog = db.query("DELETE FROM scene_log WHERE scene_id = ?");
    this.clearState = db.query("DELETE FROM scene_states WHERE scene_id = ?");
    this.clearSession = db.query("DELETE FROM scene_sessions WHERE scene_id = ?");
  }

  /**
   * Ignores every later write: on shutdown the saved state must stay what it was while the scene
   * ran (aborting its agents afterwards must not record their deliberations as finished).
   */
  freeze(): void {
    this.frozen = true;
  }

  async saveState(state: SceneRuntimeState): Promise<void> {
    if (this.frozen) return;
    this.q.saveState.run(state.sceneId, state.status, this.storage.redactor.json(JSON.stringify(state)), state.savedAt);
  }

  async loadState(sceneId: string): Promise<SceneRuntimeState | undefined> {
    const row = this.q.loadState.get(sceneId);
    return row ? parseStored(SceneRuntimeStateSchema, row.data, `state of scene "${sceneId}"`) : undefined;
  }

  async appendLog(sceneId: string, entries: readonly SceneLogEntry[]): Promise<void> {
    if (this.frozen || entries.length === 0) return;
    this.db.transaction(() => this.writeLog(sceneId, entries)).immediate();
  }

  /** The log entries and the state they lead to, in one transaction. */
  async commit(sceneId: string, entries: readonly SceneLogEntry[], state: SceneRuntimeState): Promise<void> {
    if (this.frozen) return;
    this.db
      .transaction(() => {
        this.writeLog(sceneId, entries);
        this.q.saveState.run(state.sceneId, state.status, this.storage.redactor.json(JSON.stringify(state)), state.savedAt);
      })
      .immediate();
  }

  private writeLog(sceneId: string, entries: readonly SceneLogEntry[]): void {
    for (const e of entries) this.q.appendLog.run(sceneId, e.seq, e.kind, this.storage.redactor.json(JSON.stringify(e)));
  }

  /** Stored entries with `seq >= fromSeq`, oldest first, at most `limit` (all by default). */
  async readLog(sceneId: string, fromSeq = 0, limit = -1): Promise<SceneLogEntry[]> {
    return this.q.readLog.all(sceneId, fromSeq, limit).map((row) => parseStored(SceneLogEntrySchema, row.data, `log entry of scene "${sceneId}"`));
  }

  async saveSession(sceneId: string, session: SceneSession): Promise<void> {
    this.q.saveSession.run(sceneId, JSON.stringify(session), session.startedAt);
  }

  async loadSession(sceneId: string): Promise<SceneSession | undefined> {
    const row = this.q.loadSession.get(sceneId);
    return row ? parseStored(SceneSessionSchema, row.data, `session of scene "${sceneId}"`) : undefined;
  }

  /** Scenes with a saved state, and the status they were saved in. */
  async savedStatuses(): Promise<Array<{ sceneId: string; status: string }>> {
    return this.q.statuses.all().map((r) => ({ sceneId: r.scene_id, status: r.status }));
  }

  /** Forgets a scene's state and log (a new session starts from the definition). */
  async clear(sceneId: string): Promise<void> {
    this.db
      .transaction(() => {
        this.clearLog.run(sceneId);
        this.clearState.run(sceneId);
      })
      .immediate();
  }

  /** Forgets everything of a deleted scene: state, log and session. */
  async forget(sceneId: string): Promise<void> {
    this.db
      .transaction(() => {
        this.clearLog.run(sceneId);
        this.clearState.run(sceneId);
        this.clearSession.run(sceneId);
      })
      .immediate();
  }
}
