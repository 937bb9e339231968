import { CompiledQuery, sql, type ColumnType, type Kysely } from "kysely";
import { SceneLogEntrySchema, type SceneLogEntry, type SceneRuntimeState } from "@weft/types";
import { PreparedQueries, powerOfTwoChunks, type SlotOf } from "../storage/prepared-query.ts";
import { createQueryDb } from "../storage/query-db.ts";
import type { StorageEngine } from "../storage/storage.ts";
import { decodeStoredState, SceneStateParts, stateRowsSql, type StateWrite, type StoredStateRow } from "./scene-state-store-parts.ts";
import { parseStored, SceneSessionSchema, type SceneSession, type SceneStore } from "./scene-store.ts";

/** Epoch milliseconds and world change numbers: PostgreSQL hands its BIGINT over as text. */
type Bigint = ColumnType<number | string, number, number>;

/** The scenes' tables (scene-migration.ts). */
interface SceneTables {
  scene_states: { scene_id: string; status: string; data: string; saved_at: Bigint; layout: string; write_mark: string | null };
  scene_state_parts: { scene_id: string; kind: string; key: string; data: string };
  scene_world_changes: { scene_id: string; seq: Bigint; data: string };
  scene_log: { scene_id: string; seq: number; kind: string; data: string };
  scene_sessions: { scene_id: string; data: string; started_at: Bigint };
}

/** Rows per INSERT (PostgreSQL takes at most 65,535 parameters per statement, SQLite 32,766). */
const ROWS_PER_INSERT = 1000;

/** `count` rows of a multi-row insert, `width` values each, from slot 1 on (slot 0 is the scene id). */
function slotRows<R>(slot: SlotOf, count: number, width: number, row: (column: (index: number) => never) => R): R[] {
  return Array.from({ length: count }, (_, r) => row((c) => slot(1 + r * width + c)));
}

/**
 * The scene store (see `SceneStore`) on the storage's connection, either engine: every query on the
 * open `Storage.transaction` of the caller (SQLite: through the gate, so never in another caller's),
 * writes of several statements in one, so a crash keeps the old state or the new one.
 */
class SqlSceneStore implements SceneStore {
  /** Set on shutdown: every write checks it first. */
  private frozen = false;
  private readonly db: Kysely<SceneTables>;
  /** A commit's queries (the hot path), built once per shape. */
  private readonly hot: PreparedQueries;
  private readonly parts: SceneStateParts;
  private readonly stateRows: string;
  private readonly postgres: boolean;

  constructor(private readonly storage: Pick<StorageEngine, "sql" | "redactor" | "transaction">) {
    this.db = createQueryDb<SceneTables>(storage.sql);
    this.hot = new PreparedQueries(storage.sql);
    this.parts = new SceneStateParts((value) => storage.redactor.json(JSON.stringify(value)));
    this.postgres = storage.sql.engine === "postgres";
    this.stateRows = stateRowsSql(this.postgres ? "$1" : "?1");
  }

  freeze(): void {
    this.frozen = true;
  }

  isFrozen(): boolean {
    return this.frozen;
  }

  async saveState(state: SceneRuntimeState): Promise<void> {
    if (this.frozen) return;
    await this.storage.transaction(() => this.writeState(state));
  }

  async loadState(sceneId: string): Promise<SceneRuntimeState | undefined> {
    // One statement: one snapshot of the state row and its parts, whatever commits meanwhile.
    const { rows } = await this.db.executeQuery<StoredStateRow>(CompiledQuery.raw(this.stateRows, [sceneId]));
    return decodeStoredState(sceneId, rows);
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
    const rows = await this.db
      .selectFrom("scene_log")
      .select("data")
      .where("scene_id", "=", sceneId)
      .where("seq", ">=", fromSeq)
      .orderBy("seq")
      .$if(limit >= 0, (q) => q.limit(limit))
      .execute();
    return rows.map((row) => parseStored(SceneLogEntrySchema, row.data, `log entry of scene "${sceneId}"`));
  }

  async saveSession(sceneId: string, session: SceneSession): Promise<void> {
    await this.db
      .insertInto("scene_sessions")
      .values({ scene_id: sceneId, data: JSON.stringify(session), started_at: session.startedAt })
      .onConflict((oc) => oc.column("scene_id").doUpdateSet((eb) => ({ data: eb.ref("excluded.data"), started_at: eb.ref("excluded.started_at") })))
      .execute();
  }

  async loadSession(sceneId: string): Promise<SceneSession | undefined> {
    const row = await this.db.selectFrom("scene_sessions").select("data").where("scene_id", "=", sceneId).executeTakeFirst();
    return row ? parseStored(SceneSessionSchema, row.data, `session of scene "${sceneId}"`) : undefined;
  }

  async savedStatuses(): Promise<Array<{ sceneId: string; status: string }>> {
    // Byte-wise, as SQLite orders text, whatever PostgreSQL's locale.
    const rows = await this.db
      .selectFrom("scene_states")
      .select(["scene_id", "status"])
      .orderBy(this.postgres ? sql`scene_id collate "C"` : sql.ref("scene_id"))
      .execute();
    return rows.map((r) => ({ sceneId: r.scene_id, status: r.status }));
  }

  async clear(sceneId: string): Promise<void> {
    await this.remove(sceneId, ["scene_log", "scene_states", "scene_state_parts", "scene_world_changes"]);
  }

  async forget(sceneId: string): Promise<void> {
    await this.remove(sceneId, ["scene_log", "scene_states", "scene_state_parts", "scene_world_changes", "scene_sessions"]);
  }

  private async remove(sceneId: string, tables: ReadonlyArray<keyof SceneTables>): Promise<void> {
    this.parts.forget(sceneId);
    await this.storage.transaction(async () => {
      for (const table of tables) await this.db.deleteFrom(table).where("scene_id", "=", sceneId).execute();
    });
  }

  /** Only what changed since this store's last write of the scene, when the row still holds that write; else the whole state. */
  private async writeState(state: SceneRuntimeState): Promise<void> {
    const id = state.sceneId;
    try {
      const partial = this.parts.changes(state);
      if (partial) {
        const { write, previousMark } = partial;
        const updated = await this.hot.run(
          "header-if",
          (slot) =>
            this.db
              .updateTable("scene_states")
              .set({ status: slot(1), data: slot(2), saved_at: slot(3), write_mark: slot(4) })
              .where("scene_id", "=", slot(0))
              .where("write_mark", "=", slot(5))
              .where("layout", "=", "parts"),
          [id, state.status, write.header, state.savedAt, write.mark, previousMark],
        );
        if (updated === 1) {
          await this.writeParts(id, write);
          return this.parts.wrote(state, write);
        }
      }
      const write = this.parts.whole(state);
      await this.db.deleteFrom("scene_state_parts").where("scene_id", "=", id).execute();
      await this.db.deleteFrom("scene_world_changes").where("scene_id", "=", id).execute();
      await this.db
        .insertInto("scene_states")
        .values({ scene_id: id, status: state.status, data: write.header, saved_at: state.savedAt, layout: "parts", write_mark: write.mark })
        .onConflict((oc) =>
          oc.column("scene_id").doUpdateSet((eb) => ({
            status: eb.ref("excluded.status"),
            data: eb.ref("excluded.data"),
            saved_at: eb.ref("excluded.saved_at"),
            layout: "parts",
            write_mark: eb.ref("excluded.write_mark"),
          })),
        )
        .execute();
      await this.writeParts(id, write);
      this.parts.wrote(state, write);
    } catch (error) {
      this.parts.forget(id);
      throw error;
    }
  }

  private async writeParts(sceneId: string, write: StateWrite): Promise<void> {
    for (const rows of powerOfTwoChunks(write.mailboxes, ROWS_PER_INSERT)) {
      await this.hot.run(
        `mailboxes ${rows.length}`,
        (slot) =>
          this.db
            .insertInto("scene_state_parts")
            .values(slotRows(slot, rows.length, 2, (c) => ({ scene_id: slot(0), kind: "mailbox", key: c(0), data: c(1) })))
            .onConflict((oc) => oc.columns(["scene_id", "kind", "key"]).doUpdateSet((eb) => ({ data: eb.ref("excluded.data") }))),
        [sceneId, ...rows.flat()],
      );
    }
    if (write.droppedMailboxes.length > 0) {
      await this.db.deleteFrom("scene_state_parts").where("scene_id", "=", sceneId).where("kind", "=", "mailbox").where("key", "in", write.droppedMailboxes).execute();
    }
    for (const rows of powerOfTwoChunks(write.changes, ROWS_PER_INSERT)) {
      await this.hot.run(
        `changes ${rows.length}`,
        (slot) =>
          this.db
            .insertInto("scene_world_changes")
            .values(slotRows(slot, rows.length, 2, (c) => ({ scene_id: slot(0), seq: c(0), data: c(1) })))
            .onConflict((oc) => oc.columns(["scene_id", "seq"]).doUpdateSet((eb) => ({ data: eb.ref("excluded.data") }))),
        [sceneId, ...rows.flat()],
      );
    }
    const trim = (slot: SlotOf) => this.db.deleteFrom("scene_world_changes").where("scene_id", "=", slot(0)).where("seq", "<", slot(1));
    await this.hot.run("trim", trim, [sceneId, write.keepChangesFrom]);
  }

  private async writeLog(sceneId: string, entries: readonly SceneLogEntry[]): Promise<void> {
    for (const chunk of powerOfTwoChunks(entries, ROWS_PER_INSERT)) {
      const rows = chunk.map((e) => [e.seq, e.kind, this.storage.redactor.json(JSON.stringify(e))]);
      // A log entry already stored under its number is kept as it is: a retried append cannot duplicate or reorder.
      await this.hot.run(
        `log ${rows.length}`,
        (slot) =>
          this.db
            .insertInto("scene_log")
            .values(slotRows(slot, rows.length, 3, (c) => ({ scene_id: slot(0), seq: c(0), kind: c(1), data: c(2) })))
            .onConflict((oc) => oc.columns(["scene_id", "seq"]).doNothing()),
        [sceneId, ...rows.flat()],
      );
    }
  }
}

/** The scene store on the storage's engine and connection (its tables come with SCENE_MIGRATIONS). */
export function createSceneStore(storage: Pick<StorageEngine, "sql" | "redactor" | "transaction">): SceneStore {
  return new SqlSceneStore(storage);
}
