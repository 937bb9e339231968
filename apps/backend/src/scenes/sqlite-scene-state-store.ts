import type { Database, Statement } from "bun:sqlite";
import type { SceneLogEntry, SceneRuntimeState } from "@weft/types";
import type { Storage } from "../storage/storage.ts";
import { requireSqlite, type SqliteHandle } from "../storage/sql-handle.ts";
import { decodeStoredState, SceneStateParts, stateRowsSql, type StateWrite, type StoredStateRow } from "./scene-state-store-parts.ts";
import { decodeSceneRow, FreezableSceneStore, type SceneSession, type SceneStore } from "./scene-store.ts";

export { SceneSessionSchema, StoredSceneInvalidError, type SceneSession } from "./scene-store.ts";

/** A scene's saved state read from a SQLite database file directly (tests and benches that look at what a killed server left). */
export function readSqliteSceneState(db: Database, sceneId: string): SceneRuntimeState | undefined {
  return decodeStoredState(sceneId, db.query<StoredStateRow, [string]>(stateRowsSql("?1")).all(sceneId));
}

/**
 * The scene store on SQLite (see `SceneStore`). Statements run through the storage's gate, writes in
 * `Storage.transaction`, so they never join another caller's open transaction, and join the caller's.
 */
export class SqliteSceneStateStore extends FreezableSceneStore implements SceneStore {
  private readonly q: {
    /** The state row of the "parts" layout, only where it still holds the given mark. */
    updateHeaderIf: Statement<unknown, [string, string, number, string, string, string]>;
    saveHeader: Statement<unknown, [string, string, string, number, string]>;
    saveMailbox: Statement<unknown, [string, string, string]>;
    dropMailbox: Statement<unknown, [string, string]>;
    saveChange: Statement<unknown, [string, number, string]>;
    trimChanges: Statement<unknown, [string, number]>;
    clearParts: Statement<unknown, [string]>;
    clearChanges: Statement<unknown, [string]>;
    loadState: Statement<StoredStateRow, [string]>;
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
  private readonly parts: SceneStateParts;

  constructor(private readonly storage: Pick<Storage, "sql" | "redactor" | "transaction">) {
    super();
    this.handle = requireSqlite(storage.sql, "The SQLite scene state store");
    this.parts = new SceneStateParts((value) => storage.redactor.json(JSON.stringify(value)));
    const db: Database = this.handle.db;
    this.q = {
      updateHeaderIf: db.query("UPDATE scene_states SET status = ?, data = ?, saved_at = ?, write_mark = ? WHERE scene_id = ? AND write_mark = ? AND layout = 'parts'"),
      saveHeader: db.query(
        "INSERT INTO scene_states (scene_id, status, data, saved_at, layout, write_mark) VALUES (?, ?, ?, ?, 'parts', ?) ON CONFLICT (scene_id) DO UPDATE SET status = excluded.status, data = excluded.data, saved_at = excluded.saved_at, layout = 'parts', write_mark = excluded.write_mark",
      ),
      saveMailbox: db.query("INSERT INTO scene_state_parts (scene_id, kind, key, data) VALUES (?, 'mailbox', ?, ?) ON CONFLICT (scene_id, kind, key) DO UPDATE SET data = excluded.data"),
      dropMailbox: db.query("DELETE FROM scene_state_parts WHERE scene_id = ? AND kind = 'mailbox' AND key = ?"),
      saveChange: db.query("INSERT INTO scene_world_changes (scene_id, seq, data) VALUES (?, ?, ?) ON CONFLICT (scene_id, seq) DO UPDATE SET data = excluded.data"),
      trimChanges: db.query("DELETE FROM scene_world_changes WHERE scene_id = ? AND seq < ?"),
      clearParts: db.query("DELETE FROM scene_state_parts WHERE scene_id = ?"),
      clearChanges: db.query("DELETE FROM scene_world_changes WHERE scene_id = ?"),
      loadState: db.query(stateRowsSql("?1")),
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
    // Several statements: in a transaction, so a crash keeps the old state or the new one.
    await this.storage.transaction(async () => this.writeState(state));
  }

  async loadState(sceneId: string): Promise<SceneRuntimeState | undefined> {
    const rows = await this.handle.gate(() => this.q.loadState.all(sceneId));
    return decodeStoredState(sceneId, rows);
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
    this.parts.forget(sceneId);
    await this.storage.transaction(async () => {
      this.q.clearLog.run(sceneId);
      this.clearState(sceneId);
    });
  }

  async forget(sceneId: string): Promise<void> {
    this.parts.forget(sceneId);
    await this.storage.transaction(async () => {
      this.q.clearLog.run(sceneId);
      this.clearState(sceneId);
      this.q.clearSession.run(sceneId);
    });
  }

  private clearState(sceneId: string): void {
    this.q.clearState.run(sceneId);
    this.q.clearParts.run(sceneId);
    this.q.clearChanges.run(sceneId);
  }

  /** Only what changed since this store's last write of the scene, when the row still holds that write; else the whole state. */
  private writeState(state: SceneRuntimeState): void {
    const id = state.sceneId;
    try {
      const partial = this.parts.changes(state);
      if (partial) {
        const { write, previousMark } = partial;
        if (this.q.updateHeaderIf.run(state.status, write.header, state.savedAt, write.mark, id, previousMark).changes === 1) {
          this.writeParts(id, write);
          return this.parts.wrote(state, write);
        }
      }
      const write = this.parts.whole(state);
      this.q.clearParts.run(id);
      this.q.clearChanges.run(id);
      this.q.saveHeader.run(id, state.status, write.header, state.savedAt, write.mark);
      this.writeParts(id, write);
      this.parts.wrote(state, write);
    } catch (error) {
      this.parts.forget(id);
      throw error;
    }
  }

  private writeParts(sceneId: string, write: StateWrite): void {
    for (const [key, text] of write.mailboxes) this.q.saveMailbox.run(sceneId, key, text);
    for (const key of write.droppedMailboxes) this.q.dropMailbox.run(sceneId, key);
    for (const [seq, text] of write.changes) this.q.saveChange.run(sceneId, seq, text);
    this.q.trimChanges.run(sceneId, write.keepChangesFrom);
  }

  private writeLog(sceneId: string, entries: readonly SceneLogEntry[]): void {
    for (const e of entries) this.q.appendLog.run(sceneId, e.seq, e.kind, this.storage.redactor.json(JSON.stringify(e)));
  }
}
