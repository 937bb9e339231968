import type { SceneLogEntry, SceneRuntimeState } from "@weft/types";
import type { PostgresHandle } from "../storage/sql-handle.ts";
import type { Storage } from "../storage/storage.ts";
import { decodeSceneRow, FreezableSceneStore, type SceneSession, type SceneStore } from "./scene-store.ts";

/** Rows per INSERT of log entries (PostgreSQL takes at most 65,535 parameters per statement). */
const LOG_ROWS_PER_INSERT = 1000;

/**
 * The scene store on PostgreSQL (see `SceneStore`): every statement on the open `Storage.transaction`
 * of the caller's async context, or the pool. Tables from SCENE_POSTGRES_MIGRATIONS (scene-migration.ts).
 */
export class PostgresSceneStateStore extends FreezableSceneStore implements SceneStore {
  constructor(
    private readonly handle: PostgresHandle,
    private readonly storage: Pick<Storage, "redactor" | "transaction">,
  ) {
    super();
  }

  async saveState(state: SceneRuntimeState): Promise<void> {
    if (this.frozen) return;
    await this.writeState(state);
  }

  async loadState(sceneId: string): Promise<SceneRuntimeState | undefined> {
    const [row] = (await this.handle.current()`SELECT data FROM scene_states WHERE scene_id = ${sceneId}`) as Array<{ data: string }>;
    return decodeSceneRow.state(sceneId, row);
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
    await this.storage.transaction(async () => {
      const sql = this.handle.current();
      await sql`DELETE FROM scene_log WHERE scene_id = ${sceneId}`;
      await sql`DELETE FROM scene_states WHERE scene_id = ${sceneId}`;
    });
  }

  async forget(sceneId: string): Promise<void> {
    await this.storage.transaction(async () => {
      const sql = this.handle.current();
      await sql`DELETE FROM scene_log WHERE scene_id = ${sceneId}`;
      await sql`DELETE FROM scene_states WHERE scene_id = ${sceneId}`;
      await sql`DELETE FROM scene_sessions WHERE scene_id = ${sceneId}`;
    });
  }

  private async writeState(state: SceneRuntimeState): Promise<void> {
    await this.handle.current()`INSERT INTO scene_states (scene_id, status, data, saved_at)
      VALUES (${state.sceneId}, ${state.status}, ${this.storage.redactor.json(JSON.stringify(state))}, ${state.savedAt})
      ON CONFLICT (scene_id) DO UPDATE SET status = excluded.status, data = excluded.data, saved_at = excluded.saved_at`;
  }

  private async writeLog(sceneId: string, entries: readonly SceneLogEntry[]): Promise<void> {
    const sql = this.handle.current();
    for (let i = 0; i < entries.length; i += LOG_ROWS_PER_INSERT) {
      const rows = entries.slice(i, i + LOG_ROWS_PER_INSERT).map((e) => ({ scene_id: sceneId, seq: e.seq, kind: e.kind, data: this.storage.redactor.json(JSON.stringify(e)) }));
      await sql`INSERT INTO scene_log ${sql(rows, "scene_id", "seq", "kind", "data")} ON CONFLICT (scene_id, seq) DO NOTHING`;
    }
  }
}
