import type { SQL } from "bun";
import type { SceneLogEntry, SceneRuntimeState } from "@weft/types";
import type { PostgresHandle } from "../storage/sql-handle.ts";
import type { Storage } from "../storage/storage.ts";
import { decodeStoredState, SceneStateParts, stateRowsSql, type StateWrite, type StoredStateRow } from "./scene-state-store-parts.ts";
import { decodeSceneRow, FreezableSceneStore, type SceneSession, type SceneStore } from "./scene-store.ts";

/** Rows per INSERT of log entries (PostgreSQL takes at most 65,535 parameters per statement). */
const LOG_ROWS_PER_INSERT = 1000;
const STATE_ROWS = stateRowsSql("$1");

/** A scene's saved state read from a PostgreSQL database directly (tests that look at what a killed server left). */
export async function readPostgresSceneState(sql: Pick<SQL, "unsafe">, sceneId: string): Promise<SceneRuntimeState | undefined> {
  return decodeStoredState(sceneId, (await sql.unsafe(STATE_ROWS, [sceneId])) as StoredStateRow[]);
}

/**
 * The scene store on PostgreSQL (see `SceneStore`): every statement on the open `Storage.transaction`
 * of the caller's async context, or the pool. Tables from SCENE_POSTGRES_MIGRATIONS (scene-migration.ts).
 */
export class PostgresSceneStateStore extends FreezableSceneStore implements SceneStore {
  private readonly parts: SceneStateParts;

  constructor(
    private readonly handle: PostgresHandle,
    private readonly storage: Pick<Storage, "redactor" | "transaction">,
  ) {
    super();
    this.parts = new SceneStateParts((value) => storage.redactor.json(JSON.stringify(value)));
  }

  async saveState(state: SceneRuntimeState): Promise<void> {
    if (this.frozen) return;
    // Several statements: in a transaction, so a crash keeps the old state or the new one.
    await this.storage.transaction(() => this.writeState(state));
  }

  async loadState(sceneId: string): Promise<SceneRuntimeState | undefined> {
    // One statement: one snapshot of the state row and its parts, whatever commits meanwhile.
    return decodeStoredState(sceneId, (await this.handle.current().unsafe(STATE_ROWS, [sceneId])) as StoredStateRow[]);
  }

  async appendLog(sceneId: string, entries: readonly SceneLogEntry[]): Promise<void> {
    if (this.frozen || entries.length === 0) return;
    await this.storage.transaction(() => this.writeLog(sceneId, entries));
  }

  async commit(sceneId: string, entries: readonly SceneLogEntry[], state: SceneRuntimeState): Promise<void> {
    if (this.frozen) return;
    await this.storage.transaction(async () => {
      await this.writeLog(sceneId, entries);
      await this.writeState(state);
    });
  }

  async readLog(sceneId: string, fromSeq = 0, limit = -1): Promise<SceneLogEntry[]> {
    const sql = this.handle.current();
    const rows = (
      limit < 0
        ? await sql`SELECT data FROM scene_log WHERE scene_id = ${sceneId} AND seq >= ${fromSeq} ORDER BY seq`
        : await sql`SELECT data FROM scene_log WHERE scene_id = ${sceneId} AND seq >= ${fromSeq} ORDER BY seq LIMIT ${limit}`
    ) as Array<{ data: string }>;
    return decodeSceneRow.log(sceneId, rows);
  }

  async saveSession(sceneId: string, session: SceneSession): Promise<void> {
    await this.handle.current()`INSERT INTO scene_sessions (scene_id, data, started_at) VALUES (${sceneId}, ${JSON.stringify(session)}, ${session.startedAt})
      ON CONFLICT (scene_id) DO UPDATE SET data = excluded.data, started_at = excluded.started_at`;
  }

  async loadSession(sceneId: string): Promise<SceneSession | undefined> {
    const [row] = (await this.handle.current()`SELECT data FROM scene_sessions WHERE scene_id = ${sceneId}`) as Array<{ data: string }>;
    return decodeSceneRow.session(sceneId, row);
  }

  async savedStatuses(): Promise<Array<{ sceneId: string; status: string }>> {
    const rows = (await this.handle.current()`SELECT scene_id, status FROM scene_states ORDER BY scene_id COLLATE "C"`) as Array<{ scene_id: string; status: string }>;
    return rows.map((r) => ({ sceneId: r.scene_id, status: r.status }));
  }

  async clear(sceneId: string): Promise<void> {
    this.parts.forget(sceneId);
    await this.storage.transaction(async () => {
      await this.handle.current()`DELETE FROM scene_log WHERE scene_id = ${sceneId}`;
      await this.clearState(sceneId);
    });
  }

  async forget(sceneId: string): Promise<void> {
    this.parts.forget(sceneId);
    await this.storage.transaction(async () => {
      const sql = this.handle.current();
      await sql`DELETE FROM scene_log WHERE scene_id = ${sceneId}`;
      await this.clearState(sceneId);
      await sql`DELETE FROM scene_sessions WHERE scene_id = ${sceneId}`;
    });
  }

  private async clearState(sceneId: string): Promise<void> {
    const sql = this.handle.current();
    await sql`DELETE FROM scene_states WHERE scene_id = ${sceneId}`;
    await this.clearParts(sceneId);
  }

  private async clearParts(sceneId: string): Promise<void> {
    const sql = this.handle.current();
    await sql`DELETE FROM scene_state_parts WHERE scene_id = ${sceneId}`;
    await sql`DELETE FROM scene_world_changes WHERE scene_id = ${sceneId}`;
  }

  /** Only what changed since this store's last write of the scene, when the row still holds that write; else the whole state. */
  private async writeState(state: SceneRuntimeState): Promise<void> {
    const id = state.sceneId;
    try {
      const partial = this.parts.changes(state);
      if (partial) {
        const { write, previousMark } = partial;
        const updated = await this.handle.current()`UPDATE scene_states SET status = ${state.status}, data = ${write.header}, saved_at = ${state.savedAt}, write_mark = ${write.mark}
          WHERE scene_id = ${id} AND write_mark = ${previousMark} AND layout = 'parts'`;
        if (updated.count === 1) {
          await this.writeParts(id, write);
          return this.parts.wrote(state, write);
        }
      }
      const write = this.parts.whole(state);
      await this.clearParts(id);
      await this.handle.current()`INSERT INTO scene_states (scene_id, status, data, saved_at, layout, write_mark)
        VALUES (${id}, ${state.status}, ${write.header}, ${state.savedAt}, 'parts', ${write.mark})
        ON CONFLICT (scene_id) DO UPDATE SET status = excluded.status, data = excluded.data, saved_at = excluded.saved_at, layout = 'parts', write_mark = excluded.write_mark`;
      await this.writeParts(id, write);
      this.parts.wrote(state, write);
    } catch (error) {
      this.parts.forget(id);
      throw error;
    }
  }

  private async writeParts(sceneId: string, write: StateWrite): Promise<void> {
    const sql = this.handle.current();
    if (write.mailboxes.length > 0) {
      const rows = write.mailboxes.map(([key, data]) => ({ scene_id: sceneId, kind: "mailbox", key, data }));
      await sql`INSERT INTO scene_state_parts ${sql(rows, "scene_id", "kind", "key", "data")} ON CONFLICT (scene_id, kind, key) DO UPDATE SET data = excluded.data`;
    }
    if (write.droppedMailboxes.length > 0) await sql`DELETE FROM scene_state_parts WHERE scene_id = ${sceneId} AND kind = 'mailbox' AND key IN ${sql(write.droppedMailboxes)}`;
    if (write.changes.length > 0) {
      const rows = write.changes.map(([seq, data]) => ({ scene_id: sceneId, seq, data }));
      await sql`INSERT INTO scene_world_changes ${sql(rows, "scene_id", "seq", "data")} ON CONFLICT (scene_id, seq) DO UPDATE SET data = excluded.data`;
    }
    await sql`DELETE FROM scene_world_changes WHERE scene_id = ${sceneId} AND seq < ${write.keepChangesFrom}`;
  }

  private async writeLog(sceneId: string, entries: readonly SceneLogEntry[]): Promise<void> {
    const sql = this.handle.current();
    for (let i = 0; i < entries.length; i += LOG_ROWS_PER_INSERT) {
      const rows = entries.slice(i, i + LOG_ROWS_PER_INSERT).map((e) => ({ scene_id: sceneId, seq: e.seq, kind: e.kind, data: this.storage.redactor.json(JSON.stringify(e)) }));
      await sql`INSERT INTO scene_log ${sql(rows, "scene_id", "seq", "kind", "data")} ON CONFLICT (scene_id, seq) DO NOTHING`;
    }
  }
}
