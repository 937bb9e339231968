import type { ColumnType } from "kysely";
import { isOpenChangeSet, targetObject, type SessionStatus } from "@weft/types";
import { OverlayEntrySchema, type OverlayEntry } from "../domain/change-set.ts";
import { AuditEventSchema, ChangeSetRecordSchema, SessionRecordSchema, type AuditEvent, type AuditEventType, type ChangeSetRecord, type SessionRecord } from "../domain/records.ts";
import type { Int64Column as Bigint } from "../../storage/ddl.ts";
import { byteOrder, decodeStoredJson } from "../../storage/document-table.ts";
import { num, present } from "../../storage/row-values.ts";
import { Table, type TableEngine } from "../../storage/table.ts";

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
 * The Builder's tables (seed 001 §4.2–4.5), either engine; every query joins the storage's transaction, so apply writes
 * them and the documents all or nothing. Sessions and audit events pass the redactor; text is ordered byte-wise.
 */
export class BuilderStore extends Table<BuilderTables, TableEngine> {
  /** Inserts the session, or replaces the one stored under its id. */
  async saveSession(session: SessionRecord): Promise<void> {
    const target = targetObject(session.target);
    const row = { id: session.id, target_type: target.type, target_key: target.id, status: session.status, data: this.redact(session), created_at: session.createdAt, updated_at: session.updatedAt };
    await this.upsertRows("builder_sessions", ["id"], [row], ["created_at"]);
  }

  /**
   * With `lock`, the session read to be changed: inside `transaction` the session stays locked until it ends, so two
   * writers of one session (a stage and an apply) take turns. PostgreSQL: FOR UPDATE, the row lock lasting until the
   * surrounding transaction ends; SQLite's write transactions (BEGIN IMMEDIATE) take turns already.
   */
  async getSession(id: string, lock?: "lock"): Promise<SessionRecord | undefined> {
    const query = this.db.selectFrom("builder_sessions").select(["id", "data"]).where("id", "=", id);
    const row = await query.$if(lock !== undefined && this.engine.sql.engine === "postgres", (q) => q.forUpdate()).executeTakeFirst();
    return row && sessionOf(row);
  }

  /** Newest first (by `updatedAt`). */
  async listSessions(filter: { targetType?: string; targetKey?: string; status?: SessionStatus; limit: number }): Promise<SessionRecord[]> {
    const rows = await this.db
      .selectFrom("builder_sessions")
      .select(["id", "data"])
      .where((eb) => eb.and(present({ target_type: filter.targetType, target_key: filter.targetKey, status: filter.status })))
      .orderBy("updated_at", "desc")
      .orderBy("created_at", "desc")
      .orderBy(byteOrder(this.engine.sql.engine, "id"))
      .limit(filter.limit)
      .execute();
    return rows.map(sessionOf);
  }

  /** Inserts the change set, or replaces the one stored under its id; another id for a session's version is refused. */
  async saveChangeSet(cs: ChangeSetRecord): Promise<void> {
    const row = { id: cs.id, session_id: cs.sessionId, version: cs.version, status: cs.status, data: JSON.stringify(cs), created_at: cs.createdAt, updated_at: cs.updatedAt };
    await this.upsertRows("builder_change_sets", ["id"], [row], ["created_at"]);
  }

  async getChangeSet(id: string): Promise<ChangeSetRecord | undefined> {
    const row = await this.db.selectFrom("builder_change_sets").select(["id", "data"]).where("id", "=", id).executeTakeFirst();
    return row && changeSetOf(row);
  }

  /** By version; with `open`, only those that can still be validated, applied or discarded (see `isOpenChangeSet`). */
  async listChangeSets(sessionId: string, open?: "open"): Promise<ChangeSetRecord[]> {
    const rows = await this.db
      .selectFrom("builder_change_sets")
      .select(["id", "data"])
      .where("session_id", "=", sessionId)
      .$if(open !== undefined, (q) => q.where("status", "in", OPEN_STATUSES))
      .orderBy("version")
      .execute();
    return open ? rows.map(changeSetOf).filter(isOpenChangeSet) : rows.map(changeSetOf);
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
      .orderBy(byteOrder(this.engine.sql.engine, "object_type"))
      .orderBy(byteOrder(this.engine.sql.engine, "object_key"))
      .execute();
    return rows.map((row) => decodeStoredJson("builder_working_copy record", `${sessionId}/${row.object_type}/${row.object_key}`, row.entry, OverlayEntrySchema));
  }

  /** Inserts or replaces each entry (by type and key; of two with the same, the later). */
  async putOverlay(sessionId: string, entries: readonly OverlayEntry[], now: number): Promise<void> {
    // One INSERT cannot touch a row twice: one row per type and key.
    const rows = new Map(
      entries.map((entry) => [`${entry.type}/${entry.key}`, { session_id: sessionId, object_type: entry.type, object_key: entry.key, entry: JSON.stringify(entry), updated_at: now }]),
    );
    await this.upsertRows("builder_working_copy", ["session_id", "object_type", "object_key"], [...rows.values()]);
  }

  async clearOverlay(sessionId: string): Promise<void> {
    await this.db.deleteFrom("builder_working_copy").where("session_id", "=", sessionId).execute();
  }

  async appendAudit(sessionId: string, type: AuditEventType, data: Record<string, unknown>, at = Date.now()): Promise<void> {
    await this.insertRows("builder_audit_events", [{ session_id: sessionId, type, data: this.redact(data), created_at: at }]);
  }

  /** The session's events after `afterId`, oldest first. */
  async listAudit(sessionId: string, afterId: number, limit: number): Promise<AuditEvent[]> {
    const rows = await this.db
      .selectFrom("builder_audit_events")
      .select(["id", "session_id as sessionId", "type", "data", "created_at as at"])
      .where("session_id", "=", sessionId)
      .where("id", ">", afterId)
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map((row) => AuditEventSchema.parse({ ...row, id: num(row.id), data: JSON.parse(row.data), at: num(row.at) }));
  }
}
