import type { SQL } from "bun";
import { isOpenChangeSet, targetObject, type SecretRedactor } from "@weft/types";
import { OverlayEntrySchema, type OverlayEntry } from "../domain/change-set.ts";
import { ChangeSetRecordSchema, SessionRecordSchema, type AuditEvent, type AuditEventType, type ChangeSetRecord, type SessionRecord } from "../domain/records.ts";
import type { PostgresHandle } from "../../storage/sql-handle.ts";
import { decodeStoredJson } from "../../storage/document-table.ts";
import { decodeAudit, type AuditRow, type BuilderStore, type SessionFilter, type Transact } from "./builder-store.ts";

interface DataRow {
  id: string;
  data: string;
}

/**
 * The Builder's tables in PostgreSQL. Every statement runs on `connection.current()`, so inside the
 * server storage's transaction it uses that transaction's connection. Text is ordered byte-wise
 * (COLLATE "C") as SQLite orders it, whatever the database's locale.
 */
export class PostgresBuilderStore implements BuilderStore {
  constructor(
    private readonly connection: PostgresHandle,
    private readonly redactor: SecretRedactor,
    private readonly transact: Transact,
  ) {}

  private get sql(): SQL {
    return this.connection.current();
  }

  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.transact(work);
  }

  async insertSession(session: SessionRecord): Promise<void> {
    const target = targetObject(session.target);
    const data = this.redactor.json(JSON.stringify(session));
    await this.sql`INSERT INTO builder_sessions (id, target_type, target_key, status, data, created_at, updated_at)
      VALUES (${session.id}, ${target.type}, ${target.id}, ${session.status}, ${data}, ${session.createdAt}, ${session.updatedAt})`;
  }

  async updateSession(session: SessionRecord): Promise<void> {
    const data = this.redactor.json(JSON.stringify(session));
    await this.sql`UPDATE builder_sessions SET status = ${session.status}, data = ${data}, updated_at = ${session.updatedAt} WHERE id = ${session.id}`;
  }

  async getSession(id: string): Promise<SessionRecord | undefined> {
    const [row] = (await this.sql`SELECT data FROM builder_sessions WHERE id = ${id}`) as { data: string }[];
    return row ? decodeStoredJson("builder_sessions", id, row.data, SessionRecordSchema) : undefined;
  }

  /** FOR UPDATE: the row lock lasts until the surrounding transaction ends (outside one, the statement's own). */
  async lockSession(id: string): Promise<SessionRecord | undefined> {
    const [row] = (await this.sql`SELECT data FROM builder_sessions WHERE id = ${id} FOR UPDATE`) as { data: string }[];
    return row ? decodeStoredJson("builder_sessions", id, row.data, SessionRecordSchema) : undefined;
  }

  async listSessions(filter: SessionFilter): Promise<SessionRecord[]> {
    const type = filter.targetType ?? null;
    const key = filter.targetKey ?? null;
    const status = filter.status ?? null;
    const rows = (await this.sql`SELECT id, data FROM builder_sessions
      WHERE (${type}::text IS NULL OR target_type = ${type}) AND (${key}::text IS NULL OR target_key = ${key}) AND (${status}::text IS NULL OR status = ${status})
      ORDER BY updated_at DESC, created_at DESC, id LIMIT ${filter.limit}`) as DataRow[];
    return rows.map((row) => decodeStoredJson("builder_sessions", row.id, row.data, SessionRecordSchema));
  }

  async insertChangeSet(cs: ChangeSetRecord): Promise<void> {
    await this.sql`INSERT INTO builder_change_sets (id, session_id, version, status, data, created_at, updated_at)
      VALUES (${cs.id}, ${cs.sessionId}, ${cs.version}, ${cs.status}, ${JSON.stringify(cs)}, ${cs.createdAt}, ${cs.updatedAt})`;
  }

  async updateChangeSet(cs: ChangeSetRecord): Promise<void> {
    await this.sql`UPDATE builder_change_sets SET status = ${cs.status}, data = ${JSON.stringify(cs)}, updated_at = ${cs.updatedAt} WHERE id = ${cs.id}`;
  }

  async getChangeSet(id: string): Promise<ChangeSetRecord | undefined> {
    const [row] = (await this.sql`SELECT data FROM builder_change_sets WHERE id = ${id}`) as { data: string }[];
    return row ? decodeStoredJson("builder_change_sets", id, row.data, ChangeSetRecordSchema) : undefined;
  }

  async listChangeSets(sessionId: string): Promise<ChangeSetRecord[]> {
    const rows = (await this.sql`SELECT id, data FROM builder_change_sets WHERE session_id = ${sessionId} ORDER BY version`) as DataRow[];
    return rows.map((row) => decodeStoredJson("builder_change_sets", row.id, row.data, ChangeSetRecordSchema));
  }

  async openChangeSets(sessionId: string): Promise<ChangeSetRecord[]> {
    const rows = (await this.sql`SELECT id, data FROM builder_change_sets
      WHERE session_id = ${sessionId} AND status IN ('staged', 'validated', 'rejected') ORDER BY version`) as DataRow[];
    return rows.map((row) => decodeStoredJson("builder_change_sets", row.id, row.data, ChangeSetRecordSchema)).filter(isOpenChangeSet);
  }

  async nextVersion(sessionId: string): Promise<number> {
    const [row] = (await this.sql`SELECT max(version) AS version FROM builder_change_sets WHERE session_id = ${sessionId}`) as { version: number | null }[];
    return (row?.version ?? 0) + 1;
  }

  async overlay(sessionId: string): Promise<OverlayEntry[]> {
    const rows = (await this.sql`SELECT object_type, object_key, entry FROM builder_working_copy
      WHERE session_id = ${sessionId} ORDER BY object_type COLLATE "C", object_key COLLATE "C"`) as { object_type: string; object_key: string; entry: string }[];
    return rows.map((row) => decodeStoredJson("builder_working_copy", `${sessionId}/${row.object_type}/${row.object_key}`, row.entry, OverlayEntrySchema));
  }

  async putOverlay(sessionId: string, entries: readonly OverlayEntry[], now: number): Promise<void> {
    const sql = this.sql;
    for (const entry of entries) {
      await sql`INSERT INTO builder_working_copy (session_id, object_type, object_key, entry, updated_at)
        VALUES (${sessionId}, ${entry.type}, ${entry.key}, ${JSON.stringify(entry)}, ${now})
        ON CONFLICT (session_id, object_type, object_key) DO UPDATE SET entry = excluded.entry, updated_at = excluded.updated_at`;
    }
  }

  async clearOverlay(sessionId: string): Promise<void> {
    await this.sql`DELETE FROM builder_working_copy WHERE session_id = ${sessionId}`;
  }

  async appendAudit(sessionId: string, type: AuditEventType, data: Record<string, unknown>, at = Date.now()): Promise<void> {
    await this.sql`INSERT INTO builder_audit_events (session_id, type, data, created_at) VALUES (${sessionId}, ${type}, ${this.redactor.json(JSON.stringify(data))}, ${at})`;
  }

  async listAudit(sessionId: string, afterId: number, limit: number): Promise<AuditEvent[]> {
    const rows = (await this.sql`SELECT id, session_id, type, data, created_at FROM builder_audit_events
      WHERE session_id = ${sessionId} AND id > ${afterId} ORDER BY id LIMIT ${limit}`) as AuditRow[];
    return rows.map(decodeAudit);
  }
}
