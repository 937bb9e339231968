import type { ColumnType } from "kysely";
import { isOpenChangeSet, targetObject, type SessionStatus } from "@weft/types";
import { OverlayEntrySchema, type OverlayEntry } from "../domain/change-set.ts";
import { AuditEventTypeSchema, ChangeSetRecordSchema, SessionRecordSchema, type AuditEvent, type AuditEventType, type ChangeSetRecord, type SessionRecord } from "../domain/records.ts";
import type { Int64Column as Bigint } from "../../storage/ddl.ts";
import { byteOrder, decodeStoredJson } from "../../storage/document-table.ts";
import { num } from "../../storage/row-values.ts";
import { Table, type TableEngine } from "../../storage/table.ts";

export interface SessionFilter {
  targetType?: string;
  targetKey?: string;
  status?: SessionStatus;
  limit: number;
}

/** The Builder's tables (builder-migration.ts). */
interface BuilderTables {
  builder_sessions: { id: string; target_type: string; target_key: string; status: string; data: string; created_at: Bigint; updated_at: Bigint };
  builder_change_sets: { id: string; session_id: string; version: number; status: string; data: string; created_at: Bigint; updated_at: Bigint };
  builder_working_copy: { session_id: string; object_type: string; object_key: string; entry: string; updated_at: Bigint };
  builder_audit_events: { id: ColumnType<number | string, never, never>; session_id: string; type: string; data: string; created_at: Bigint };
}

/** Open change sets as stored; `isOpenChangeSet` has the last word. */
const OPEN_STATUSES = ["staged", "validated", "rejected"];

const sessionOf = (row: { id: string; data: string }) => decodeStoredJson("builder_sessions record", row.id, row.data, SessionRecordSchema);
const changeSetOf = (row: { id: string; data: string }) => decodeStoredJson("builder_change_sets record", row.id, row.data, ChangeSetRecordSchema);

/**
 * The Builder's own tables (seed 001 §4.2–4.5): sessions, staged change sets, each session's working
 * copy and the audit events, on the server storage's connection, either engine: every query joins the
 * storage's transaction, so `transaction` spans these tables and the stored documents (apply writes both,
 * all or nothing). Sessions (with the AI's messages and errors) and audit events pass the redactor. Text
 * is ordered byte-wise, as SQLite orders it, whatever PostgreSQL's locale.
 */
export class BuilderStore extends Table<BuilderTables, TableEngine> {
  private bytewise(column: string) {
    return byteOrder(this.engine.sql.engine, column);
  }

  /**
   * Runs `work` in the server storage's transaction: every write in it, the Builder's and the documents',
   * is stored, or none. `work` awaits only storage calls (no model or file I/O), and opens no nested transaction.
   */
  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.engine.transaction(work);
  }

  async insertSession(session: SessionRecord): Promise<void> {
    const target = targetObject(session.target);
    const data = this.redact(session);
    await this.db
      .insertInto("builder_sessions")
      .values({ id: session.id, target_type: target.type, target_key: target.id, status: session.status, data, created_at: session.createdAt, updated_at: session.updatedAt })
      .execute();
  }

  async updateSession(session: SessionRecord): Promise<void> {
    const data = this.redact(session);
    await this.db.updateTable("builder_sessions").set({ status: session.status, data, updated_at: session.updatedAt }).where("id", "=", session.id).execute();
  }

  getSession(id: string): Promise<SessionRecord | undefined> {
    return this.readSession(id, false);
  }

  /**
   * The session, read to be changed: inside `transaction` the session stays locked until it ends, so two writers of
   * one session (a stage and an apply) take turns. PostgreSQL: FOR UPDATE, the row lock lasting until the surrounding
   * transaction ends; SQLite's write transactions (BEGIN IMMEDIATE) take turns already.
   */
  lockSession(id: string): Promise<SessionRecord | undefined> {
    return this.readSession(id, true);
  }

  private async readSession(id: string, lock: boolean): Promise<SessionRecord | undefined> {
    const query = this.db.selectFrom("builder_sessions").select(["id", "data"]).where("id", "=", id);
    const row = await query.$if(lock && this.engine.sql.engine === "postgres", (q) => q.forUpdate()).executeTakeFirst();
    return row && sessionOf(row);
  }

  /** Newest first (by `updatedAt`). */
  async listSessions(filter: SessionFilter): Promise<SessionRecord[]> {
    const rows = await this.db
      .selectFrom("builder_sessions")
      .select(["id", "data"])
      .$if(filter.targetType !== undefined, (q) => q.where("target_type", "=", filter.targetType as string))
      .$if(filter.targetKey !== undefined, (q) => q.where("target_key", "=", filter.targetKey as string))
      .$if(filter.status !== undefined, (q) => q.where("status", "=", filter.status as string))
      .orderBy("updated_at", "desc")
      .orderBy("created_at", "desc")
      .orderBy(this.bytewise("id"))
      .limit(filter.limit)
      .execute();
    return rows.map(sessionOf);
  }

  async insertChangeSet(cs: ChangeSetRecord): Promise<void> {
    const row = { id: cs.id, session_id: cs.sessionId, version: cs.version, status: cs.status, data: JSON.stringify(cs), created_at: cs.createdAt, updated_at: cs.updatedAt };
    await this.db.insertInto("builder_change_sets").values(row).execute();
  }

  async updateChangeSet(cs: ChangeSetRecord): Promise<void> {
    await this.db
      .updateTable("builder_change_sets")
      .set({ status: cs.status, data: JSON.stringify(cs), updated_at: cs.updatedAt })
      .where("id", "=", cs.id)
      .execute();
  }

  async getChangeSet(id: string): Promise<ChangeSetRecord | undefined> {
    const row = await this.db.selectFrom("builder_change_sets").select(["id", "data"]).where("id", "=", id).executeTakeFirst();
    return row && changeSetOf(row);
  }

  /** By version. */
  listChangeSets(sessionId: string): Promise<ChangeSetRecord[]> {
    return this.changeSets(sessionId, false);
  }

  /** Change sets that can still be validated, applied or discarded (see `isOpenChangeSet`). */
  async openChangeSets(sessionId: string): Promise<ChangeSetRecord[]> {
    return (await this.changeSets(sessionId, true)).filter(isOpenChangeSet);
  }

  private async changeSets(sessionId: string, open: boolean): Promise<ChangeSetRecord[]> {
    const rows = await this.db
      .selectFrom("builder_change_sets")
      .select(["id", "data"])
      .where("session_id", "=", sessionId)
      .$if(open, (q) => q.where("status", "in", OPEN_STATUSES))
      .orderBy("version")
      .execute();
    return rows.map(changeSetOf);
  }

  async nextVersion(sessionId: string): Promise<number> {
    const row = await this.db
      .selectFrom("builder_change_sets")
      .select((eb) => eb.fn.max("version").as("version"))
      .where("session_id", "=", sessionId)
      .executeTakeFirst();
    return (row?.version ?? 0) + 1;
  }

  /** The session's working copy, by object type then key. */
  async overlay(sessionId: string): Promise<OverlayEntry[]> {
    const rows = await this.db
      .selectFrom("builder_working_copy")
      .select(["object_type", "object_key", "entry"])
      .where("session_id", "=", sessionId)
      .orderBy(this.bytewise("object_type"))
      .orderBy(this.bytewise("object_key"))
      .execute();
    return rows.map((row) => decodeStoredJson("builder_working_copy record", `${sessionId}/${row.object_type}/${row.object_key}`, row.entry, OverlayEntrySchema));
  }

  /** Inserts or replaces each entry (by type and key). */
  async putOverlay(sessionId: string, entries: readonly OverlayEntry[], now: number): Promise<void> {
    for (const entry of entries) {
      await this.upsertRows(
        "builder_working_copy",
        ["session_id", "object_type", "object_key"],
        [{ session_id: sessionId, object_type: entry.type, object_key: entry.key, entry: JSON.stringify(entry), updated_at: now }],
      );
    }
  }

  async clearOverlay(sessionId: string): Promise<void> {
    await this.db.deleteFrom("builder_working_copy").where("session_id", "=", sessionId).execute();
  }

  async appendAudit(sessionId: string, type: AuditEventType, data: Record<string, unknown>, at = Date.now()): Promise<void> {
    await this.db
      .insertInto("builder_audit_events")
      .values({ session_id: sessionId, type, data: this.redact(data), created_at: at })
      .execute();
  }

  /** The session's events after `afterId`, oldest first. */
  async listAudit(sessionId: string, afterId: number, limit: number): Promise<AuditEvent[]> {
    const rows = await this.db.selectFrom("builder_audit_events").selectAll().where("session_id", "=", sessionId).where("id", ">", afterId).orderBy("id").limit(limit).execute();
    return rows.map((row) => ({
      id: num(row.id),
      sessionId: row.session_id,
      type: AuditEventTypeSchema.parse(row.type),
      data: JSON.parse(row.data) as Record<string, unknown>,
      at: num(row.created_at),
    }));
  }
}

/** The Builder's store on the server storage's connection: its writes join `Storage.transaction`. */
export function createBuilderStore(storage: TableEngine): BuilderStore {
  return new BuilderStore(storage);
}
