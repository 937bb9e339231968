import { randomUUID } from "node:crypto";
import { CompiledQuery, type Kysely } from "kysely";
import { z } from "zod";
import type { SceneStateStore } from "@weft/agent-runtime";
import { SceneLogEntrySchema, type MailboxState, type SceneLogEntry, type SceneRuntimeState, type WorldChange } from "@weft/types";
import type { SlotOf } from "../storage/prepared-query.ts";
import type { Int64Column as Bigint } from "../storage/ddl.ts";
import { byteOrder, decodeStoredJson } from "../storage/document-table.ts";
import { Table, type TableEngine } from "../storage/table.ts";
import { decodeStoredState, headerOf, newChanges, stateRowsSql, type StoredStateRow, type Written } from "./scene-state-store-parts.ts";

/** Which conversation each agent instance of a scene's current session talks in. */
export const SceneSessionSchema = z.object({
  sessionId: z.string(),
  startedAt: z.number(),
  conversations: z.record(z.string(), z.string()),
  /** The user who started the session: the runs its agents cause name them (`createdBy`), after a restart too. */
  startedBy: z.string().optional(),
});
export type SceneSession = z.infer<typeof SceneSessionSchema>;

/** The scenes' tables (scene-migration.ts). */
interface SceneTables {
  scene_states: { scene_id: string; status: string; data: string; saved_at: Bigint; layout: string; write_mark: string | null };
  scene_state_parts: { scene_id: string; kind: string; key: string; data: string };
  scene_world_changes: { scene_id: string; seq: Bigint; data: string };
  scene_log: { scene_id: string; seq: number; kind: string; data: string };
  scene_sessions: { scene_id: string; data: string; started_at: Bigint };
}

/**
 * Scenes' runtime state (saved in parts, scene-state-store-parts.ts), session logs and sessions, either engine: writes
 * of several statements in one transaction (the caller's when open), so a crash keeps the old state or the new one.
 */
export class SceneStore extends Table<SceneTables, TableEngine> implements SceneStateStore {
  /** Set on shutdown: every write checks it first. */
  private frozen = false;
  /** Names this store's writes (`write_mark`): its memory of a scene is trusted while the state row holds its last one. */
  private readonly writer = randomUUID();
  private counter = 0;
  private readonly written = new Map<string, Written>();
  private readonly stateRows = stateRowsSql(this.engine.sql.engine === "postgres" ? "$1" : "?1");

  /** Ignores every later write: on shutdown the saved state must stay what it was while the scene ran. */
  freeze(): void {
    this.frozen = true;
  }

  isFrozen(): boolean {
    return this.frozen;
  }

  async saveState(state: SceneRuntimeState): Promise<void> {
    await this.commit(state.sceneId, [], state);
  }

  async loadState(sceneId: string): Promise<SceneRuntimeState | undefined> {
    // One statement: one snapshot of the state row and its parts, whatever commits meanwhile.
    const { rows } = await this.db.executeQuery<StoredStateRow>(CompiledQuery.raw(this.stateRows, [sceneId]));
    return decodeStoredState(sceneId, rows);
  }

  async appendLog(sceneId: string, entries: readonly SceneLogEntry[]): Promise<void> {
    if (this.frozen || entries.length === 0) return;
    await this.engine.transaction(() => this.writeLog(sceneId, entries));
  }

  /** Appends the entries and saves the state they lead to, in one transaction (the caller's, when one is open). */
  async commit(sceneId: string, entries: readonly SceneLogEntry[], state: SceneRuntimeState): Promise<void> {
    if (this.frozen) return;
    await this.engine.transaction(async () => {
      await this.writeLog(sceneId, entries);
      await this.writeState(state);
    });
  }

  /** Stored entries with `seq >= fromSeq`, oldest first, at most `limit` (all by default). */
  async readLog(sceneId: string, fromSeq = 0, limit = -1): Promise<SceneLogEntry[]> {
    const rows = await this.db
      .selectFrom("scene_log")
      .select("data")
      .where("scene_id", "=", sceneId)
      .where("seq", ">=", fromSeq)
      .orderBy("seq")
      .$if(limit >= 0, (q) => q.limit(limit))
      .execute();
    return rows.map((row) => decodeStoredJson("log entry of scene", sceneId, row.data, SceneLogEntrySchema));
  }

  async saveSession(sceneId: string, session: SceneSession): Promise<void> {
    await this.upsertRows("scene_sessions", ["scene_id"], [{ scene_id: sceneId, data: JSON.stringify(session), started_at: session.startedAt }]);
  }

  async loadSession(sceneId: string): Promise<SceneSession | undefined> {
    const row = await this.db.selectFrom("scene_sessions").select("data").where("scene_id", "=", sceneId).executeTakeFirst();
    return row ? decodeStoredJson("session of scene", sceneId, row.data, SceneSessionSchema) : undefined;
  }

  /** Scenes with a saved state, and the status they were saved in, by scene id. */
  async savedStatuses(): Promise<Array<{ sceneId: string; status: string }>> {
    // Byte-wise, as SQLite orders text, whatever PostgreSQL's locale.
    const rows = await this.db.selectFrom("scene_states").select(["scene_id", "status"]).orderBy(byteOrder(this.engine.sql.engine, "scene_id")).execute();
    return rows.map((r) => ({ sceneId: r.scene_id, status: r.status }));
  }

  /** Forgets a scene's state and log (a new session starts from the definition). */
  async clear(sceneId: string): Promise<void> {
    await this.engine.transaction(() => this.deleteRows(sceneId, ["scene_log", "scene_states", "scene_state_parts", "scene_world_changes"]));
  }

  /** Forgets everything of a deleted scene: state, log and session. */
  async forget(sceneId: string): Promise<void> {
    await this.engine.transaction(() => this.deleteRows(sceneId, ["scene_log", "scene_states", "scene_state_parts", "scene_world_changes", "scene_sessions"]));
  }

  /** Deletes the scene's rows in `tables`, and this store's memory of what it wrote of the scene. */
  private async deleteRows(sceneId: string, tables: ReadonlyArray<keyof SceneTables>): Promise<void> {
    this.written.delete(sceneId);
    for (const table of tables) await this.db.deleteFrom(table).where("scene_id", "=", sceneId).execute();
  }

  /**
   * Only what changed since this store's last write of the scene (each part compared with the object then written:
   * `serializeScene` keeps unchanged ones), when the row still holds that write's mark; else the whole state. See README.md.
   */
  private async writeState(state: SceneRuntimeState): Promise<void> {
    const id = state.sceneId;
    const mark = `${this.writer}:${++this.counter}`;
    const header = this.redact(headerOf(state));
    try {
      const last = this.written.get(id);
      const fresh = last && newChanges(state.world.history, last.lastChange);
      const values = [id, state.status, header, state.savedAt, mark, last?.mark];
      if (last && fresh && (await this.hot.run("header-if", headerIf(this.db), values)) === 1) {
        await this.writeParts(state, last.mailboxes, fresh);
      } else {
        await this.deleteRows(id, ["scene_state_parts", "scene_world_changes"]);
        await this.upsertRows("scene_states", ["scene_id"], [{ scene_id: id, status: state.status, data: header, saved_at: state.savedAt, layout: "parts", write_mark: mark }]);
        await this.writeParts(state, new Map(), state.world.history);
      }
      // A stopped scene is not remembered: its next save, if any, writes it whole.
      if (state.status === "stopped") this.written.delete(id);
      else this.written.set(id, { mark, mailboxes: new Map(Object.entries(state.mailboxes)), lastChange: state.world.history.at(-1) });
    } catch (error) {
      this.written.delete(id);
      throw error;
    }
  }

  /** The mailboxes other than in `written` (by identity) and the `fresh` world changes; mailboxes gone and older changes deleted. */
  private async writeParts(state: SceneRuntimeState, written: ReadonlyMap<string, MailboxState>, fresh: readonly WorldChange[]): Promise<void> {
    const sceneId = state.sceneId;
    const mailboxes = Object.entries(state.mailboxes).filter(([key, mailbox]) => written.get(key) !== mailbox);
    await this.upsertRows(
      "scene_state_parts",
      ["scene_id", "kind", "key"],
      mailboxes.map(([key, mailbox]) => ({ scene_id: sceneId, kind: "mailbox", key, data: this.redact(mailbox) })),
    );
    const dropped = [...written.keys()].filter((key) => !Object.hasOwn(state.mailboxes, key));
    if (dropped.length > 0) await this.db.deleteFrom("scene_state_parts").where("scene_id", "=", sceneId).where("kind", "=", "mailbox").where("key", "in", dropped).execute();
    await this.upsertRows(
      "scene_world_changes",
      ["scene_id", "seq"],
      fresh.map((change) => ({ scene_id: sceneId, seq: change.seq, data: this.redact(change) })),
    );
    // Rows of world changes older than the oldest the state keeps are deleted.
    const keepFrom = state.world.history[0]?.seq ?? state.world.seq + 1;
    const trim = (slot: SlotOf) => this.db.deleteFrom("scene_world_changes").where("scene_id", "=", slot(0)).where("seq", "<", slot(1));
    await this.hot.run("trim", trim, [sceneId, keepFrom]);
  }

  private async writeLog(sceneId: string, entries: readonly SceneLogEntry[]): Promise<void> {
    const rows = entries.map((e) => ({ scene_id: sceneId, seq: e.seq, kind: e.kind, data: this.redact(e) }));
    // A log entry already stored under its number is kept as it is: a retried append cannot duplicate or reorder.
    await this.upsertRows("scene_log", ["scene_id", "seq"], rows, "all");
  }
}

/** A partial write's header: only where the row still holds the store's last mark (`slot(5)`) and the parts layout. */
const headerIf = (db: Kysely<SceneTables>) => (slot: SlotOf) =>
  db
    .updateTable("scene_states")
    .set({ status: slot(1), data: slot(2), saved_at: slot(3), write_mark: slot(4) })
    .where("scene_id", "=", slot(0))
    .where("write_mark", "=", slot(5))
    .where("layout", "=", "parts");
