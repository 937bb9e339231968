import type { Database, Statement } from "bun:sqlite";
import type { SceneLogEntry, SceneRuntimeState } from "@weft/types";
import type { Storage } from "../storage/storage.ts";
import { requireSqlite, type SqliteHandle } from "../storage/sql-handle.ts";
import { decodeSceneRow, FreezableSceneStore, type SceneSession, type SceneStore } from "./scene-store.ts";

export { SceneSessionSchema, StoredSceneInvalidError, type SceneSession } from "./scene-store.ts";

/**
 * The scene store on SQLite (see `SceneStore`). Statements run through the storage's gate, writes in
 * `Storage.transaction`, so they never join another caller's open transaction, and join the caller's.
 */
export class SqliteSceneStateStore extends FreezableSceneStore implements SceneStore {
  private readonly q: {
    saveState: Statement<unknown, [string, string, string, number]>;
    loadState: Statement<{ data: string }, [string]>;
    appendLog: Statement<unknown, [string, number, string, string]>;
    readLog: Statement<{ data: string }, [string, number, number]>;
    saveSession: Statement<unknown, [string, string, number]>;
    loadSession: Statement<{ data: string }, [string]>;
    statuses: Statement<{ scene_id: string; status: string }, []>;
    clearLog: Statement<unknown, [string]>;
    clearState: Statement<unknown, [string]>;
    clearSession: Statement<unknown, [string]>;
  };
  private readonly handle: SqliteHandle;

  constructor(private readonly storage: Pick<Storage, "sql" | "redactor" | "transaction">) {
    super();
    this.handle = requireSqlite(storage.sql, "The SQLite scene state store");
    const db: Database = this.handle.db;
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
      clearLog: db.query("DELETE FROM scene_log WHERE scene_id = ?"),
      clearState: db.query("DELETE FROM scene_states WHERE scene_id = ?"),
      clearSession: db.query("DELETE FROM scene_sessions WHERE scene_id = ?"),
    };
  }

  async saveState(state: SceneRuntimeState): Promise<void> {
    if (this.frozen) return;
    await this.handle.gate(() => this.writeState(state));
  }

  async loadState(sceneId: string): Promise<SceneRuntimeState | undefined> {
    const row = await this.handle.gate(() => this.q.loadState.get(sceneId));
    return decodeSceneRow.state(sceneId, row);
  }

  async appendLog(sceneId: string, entries: readonly SceneLogEntry[]): Promise<void> {
    if (this.frozen || entries.length === 0) return;
    await this.storage.transaction(async () => this.writeLog(sceneId, entries));
  }

  async commit(sceneId: string, entries: readonly SceneLogEntry[], state: SceneRuntimeState): Promise<void> {
    if (this.frozen) return;
    await this.storage.transaction(async () => {
      this.writeLog(sceneId, entries);
      this.writeState(state);
    });
  }

  async readLog(sceneId: string, fromSeq = 0, limit = -1): Promise<SceneLogEntry[]> {
    const rows = await this.handle.gate(() => this.q.readLog.all(sceneId, fromSeq, limit));
    return decodeSceneRow.log(sceneId, rows);
  }

  async saveSession(sceneId: string, session: SceneSession): Promise<void> {
    await this.handle.gate(() => this.q.saveSession.run(sceneId, JSON.stringify(session), session.startedAt));
  }

  async loadSession(sceneId: string): Promise<SceneSession | undefined> {
    const row = await this.handle.gate(() => this.q.loadSession.get(sceneId));
    return decodeSceneRow.session(sceneId, row);
  }

  async savedStatuses(): Promise<Array<{ sceneId: string; status: string }>> {
    return (await this.handle.gate(() => this.q.statuses.all())).map((r) => ({ sceneId: r.scene_id, status: r.status }));
  }

  async clear(sceneId: string): Promise<void> {
    await this.storage.transaction(async () => {
      this.q.clearLog.run(sceneId);
      this.q.clearState.run(sceneId);
    });
  }

  async forget(sceneId: string): Promise<void> {
    await this.storage.transaction(async () => {
      this.q.clearLog.run(sceneId);
      this.q.clearState.run(sceneId);
      this.q.clearSession.run(sceneId);
    });
  }

  private writeState(state: SceneRuntimeState): void {
    this.q.saveState.run(state.sceneId, state.status, this.storage.redactor.json(JSON.stringify(state)), state.savedAt);
  }

  private writeLog(sceneId: string, entries: readonly SceneLogEntry[]): void {
    for (const e of entries) this.q.appendLog.run(sceneId, e.seq, e.kind, this.storage.redactor.json(JSON.stringify(e)));
  }
}
