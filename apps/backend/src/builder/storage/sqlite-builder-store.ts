import type { Statement } from "bun:sqlite";
import { isOpenChangeSet, targetObject, type SecretRedactor } from "@weft/types";
import { OverlayEntrySchema, type OverlayEntry } from "../domain/change-set.ts";
import { ChangeSetRecordSchema, SessionRecordSchema, type AuditEvent, type AuditEventType, type ChangeSetRecord, type SessionRecord } from "../domain/records.ts";
import type { SqliteHandle } from "../../storage/sql-handle.ts";
import { decodeStoredJson } from "../../storage/document-table.ts";
import { decodeAudit, type AuditRow, type BuilderStore, type SessionFilter, type Transact } from "./builder-store.ts";

/**
 * The Builder's tables in SQLite, as prepared statements on the server storage's connection. Each
 * statement passes the storage's gate, so it waits while another caller's transaction is open (and
 * runs at once inside the caller's own).
 */
export class SqliteBuilderStore implements BuilderStore {
  private readonly q: {
    insertSession: Statement<unknown, [string, string, string, string, string, number, number]>;
    updateSession: Statement<unknown, [string, string, number, string]>;
    selectSession: Statement<{ data: string }, [string]>;
    listSessions: Statement<{ id: string; data: string }, [string | null, string | null, string | null, number]>;
    insertChangeSet: Statement<unknown, [string, string, number, string, string, number, number]>;
    updateChangeSet: Statement<unknown, [string, string, number, string]>;
    selectChangeSet: Statement<{ data: string }, [string]>;
    listChangeSets: Statement<{ id: string; data: string }, [string]>;
    openChangeSets: Statement<{ id: string; data: string }, [string]>;
    lastVersion: Statement<{ version: number | null }, [string]>;
    selectOverlay: Statement<{ object_type: string; object_key: string; entry: string }, [string]>;
    upsertOverlay: Statement<unknown, [string, string, string, string, number]>;
    clearOverlay: Statement<unknown, [string]>;
    insertAudit: Statement<unknown, [string, string, string, number]>;
    listAudit: Statement<AuditRow, [string, number, number]>;
  };

  /**
   * `handle` is the server storage's connection and `transact` its transaction, so the Builder's writes
   * share one with the documents'. Sessions (with the AI's messages and errors) and audit events pass the redactor.
   */
  constructor(
    private readonly handle: SqliteHandle,
    private readonly redactor: SecretRedactor,
    private readonly transact: Transact,
  ) {
    const { db } = handle;
    this.q = {
      insertSession: db.query("INSERT INTO builder_sessions (id, target_type, target_key, status, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)"),
      updateSession: db.query("UPDATE builder_sessions SET status = ?, data = ?, updated_at = ? WHERE id = ?"),
      selectSession: db.query("SELECT data FROM builder_sessions WHERE id = ?"),
      listSessions: db.query(
        "SELECT id, data FROM builder_sessions WHERE (?1 IS NULL OR target_type = ?1) AND (?2 IS NULL OR target_key = ?2) AND (?3 IS NULL OR status = ?3) ORDER BY updated_at DESC LIMIT ?4",
      ),
      insertChangeSet: db.query("INSERT INTO builder_change_sets (id, session_id, version, status, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)"),
      updateChangeSet: db.query("UPDATE builder_change_sets SET status = ?, data = ?, updated_at = ? WHERE id = ?"),
      selectChangeSet: db.query("SELECT data FROM builder_change_sets WHERE id = ?"),
      listChangeSets: db.query("SELECT id, data FROM builder_change_sets WHERE session_id = ? ORDER BY version"),
      openChangeSets: db.query("SELECT id, data FROM builder_change_sets WHERE session_id = ? AND status IN ('staged', 'validated', 'rejected') ORDER BY version"),
      lastVersion: db.query("SELECT max(version) AS version FROM builder_change_sets WHERE session_id = ?"),
      selectOverlay: db.query("SELECT object_type, object_key, entry FROM builder_working_copy WHERE session_id = ? ORDER BY object_type, object_key"),
      upsertOverlay: db.query(
        "INSERT INTO builder_working_copy (session_id, object_type, object_key, entry, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id, object_type, object_key) DO UPDATE SET entry = excluded.entry, updated_at = excluded.updated_at",
      ),
      clearOverlay: db.query("DELETE FROM builder_working_copy WHERE session_id = ?"),
      insertAudit: db.query("INSERT INTO builder_audit_events (session_id, type, data, created_at) VALUES (?, ?, ?, ?)"),
      listAudit: db.query("SELECT id, session_id, type, data, created_at FROM builder_audit_events WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?"),
    };
  }

  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.transact(work);
  }

  async insertSession(session: SessionRecord): Promise<void> {
    const target = targetObject(session.target);
    const data = this.redactor.json(JSON.stringify(session));
    await this.handle.gate(() => this.q.insertSession.run(session.id, target.type, target.id, session.status, data, session.createdAt, session.updatedAt));
  }

  async updateSession(session: SessionRecord): Promise<void> {
    const data = this.redactor.json(JSON.stringify(session));
    await this.handle.gate(() => this.q.updateSession.run(session.status, data, session.updatedAt, session.id));
  }

  async getSession(id: string): Promise<SessionRecord | undefined> {
    const row = await this.handle.gate(() => this.q.selectSession.get(id));
    return row ? decodeStoredJson("builder_sessions", id, row.data, SessionRecordSchema) : undefined;
  }

  /** A plain read: SQLite's write transactions (BEGIN IMMEDIATE) already run one at a time. */
  lockSession(id: string): Promise<SessionRecord | undefined> {
    return this.getSession(id);
  }

  async listSessions(filter: SessionFilter): Promise<SessionRecord[]> {
    const rows = await this.handle.gate(() => this.q.listSessions.all(filter.targetType ?? null, filter.targetKey ?? null, filter.status ?? null, filter.limit));
    return rows.map((row) => decodeStoredJson("builder_sessions", row.id, row.data, SessionRecordSchema));
  }

  async insertChangeSet(changeSet: ChangeSetRecord): Promise<void> {
    const data = JSON.stringify(changeSet);
    await this.handle.gate(() => this.q.insertChangeSet.run(changeSet.id, changeSet.sessionId, changeSet.version, changeSet.status, data, changeSet.createdAt, changeSet.updatedAt));
  }

  async updateChangeSet(changeSet: ChangeSetRecord): Promise<void> {
    const data = JSON.stringify(changeSet);
    await this.handle.gate(() => this.q.updateChangeSet.run(changeSet.status, data, changeSet.updatedAt, changeSet.id));
  }

  async getChangeSet(id: string): Promise<ChangeSetRecord | undefined> {
    const row = await this.handle.gate(() => this.q.selectChangeSet.get(id));
    return row ? decodeStoredJson("builder_change_sets", id, row.data, ChangeSetRecordSchema) : undefined;
  }

  async listChangeSets(sessionId: string): Promise<ChangeSetRecord[]> {
    const rows = await this.handle.gate(() => this.q.listChangeSets.all(sessionId));
    return rows.map((row) => decodeStoredJson("builder_change_sets", row.id, row.data, ChangeSetRecordSchema));
  }

  async openChangeSets(sessionId: string): Promise<ChangeSetRecord[]> {
    const rows = await this.handle.gate(() => this.q.openChangeSets.all(sessionId));
    return rows.map((row) => decodeStoredJson("builder_change_sets", row.id, row.data, ChangeSetRecordSchema)).filter(isOpenChangeSet);
  }

  async nextVersion(sessionId: string): Promise<number> {
    const row = await this.handle.gate(() => this.q.lastVersion.get(sessionId));
    return (row?.version ?? 0) + 1;
  }

  async overlay(sessionId: string): Promise<OverlayEntry[]> {
    const rows = await this.handle.gate(() => this.q.selectOverlay.all(sessionId));
    return rows.map((row) => decodeStoredJson("builder_working_copy", `${sessionId}/${row.object_type}/${row.object_key}`, row.entry, OverlayEntrySchema));
  }

  async putOverlay(sessionId: string, entries: readonly OverlayEntry[], now: number): Promise<void> {
    await this.handle.gate(() => {
      for (const entry of entries) this.q.upsertOverlay.run(sessionId, entry.type, entry.key, JSON.stringify(entry), now);
    });
  }

  async clearOverlay(sessionId: string): Promise<void> {
    await this.handle.gate(() => this.q.clearOverlay.run(sessionId));
  }

  async appendAudit(sessionId: string, type: AuditEventType, data: Record<string, unknown>, at = Date.now()): Promise<void> {
    const text = this.redactor.json(JSON.stringify(data));
    await this.handle.gate(() => this.q.insertAudit.run(sessionId, type, text, at));
  }

  async listAudit(sessionId: string, afterId: number, limit: number): Promise<AuditEvent[]> {
    return (await this.handle.gate(() => this.q.listAudit.all(sessionId, afterId, limit))).map(decodeAudit);
  }
}
