import type { Database, Statement } from "bun:sqlite";
import type { z } from "zod";
import { isOpenChangeSet, targetObject, type SecretRedactor, type SessionStatus } from "@weft/types";
import { StoredRecordInvalidError } from "../../storage/document-table.ts";
import { OverlayEntrySchema, type OverlayEntry } from "../domain/change-set.ts";
import { ChangeSetRecordSchema, SessionRecordSchema, AuditEventTypeSchema, type AuditEvent, type AuditEventType, type ChangeSetRecord, type SessionRecord } from "../domain/records.ts";

function decode<S extends z.ZodType>(schema: S, table: string, id: string, text: string): z.output<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new StoredRecordInvalidError(table, id, "not JSON");
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new StoredRecordInvalidError(table, id, parsed.error.issues[0]?.message ?? "invalid");
  return parsed.data;
}

/** Sessions, change sets, working copies and audit events. Synchronous, so callers can group writes in one transaction. */
export class BuilderRepository {
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
    listAudit: Statement<{ id: number; session_id: string; type: string; data: string; created_at: number }, [string, number, number]>;
  };

  /**
   * `db` is the server storage's connection, so the Builder's writes can share a transaction with the
   * documents'. Sessions (with the AI's messages and errors) and audit events pass the redactor.
   */
  constructor(
    private readonly db: Database,
    private readonly redactor: SecretRedactor,
  ) {
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
      openChangeSets: db.query("SELECT id, data FROM builder_change_sets WHERE session_id = ? AND status IN ('staged', 'validated', 'rejected')"),
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

  /** Runs `work` in one SQLite transaction (BEGIN IMMEDIATE): all of it is stored, or none. */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  insertSession(session: SessionRecord): void {
    const target = targetObject(session.target);
    this.q.insertSession.run(session.id, target.type, target.id, session.status, this.redactor.json(JSON.stringify(session)), session.createdAt, session.updatedAt);
  }

  updateSession(session: SessionRecord): void {
    this.q.updateSession.run(session.status, this.redactor.json(JSON.stringify(session)), session.updatedAt, session.id);
  }

  getSession(id: string): SessionRecord | undefined {
    const row = this.q.selectSession.get(id);
    return row ? decode(SessionRecordSchema, "builder_sessions", id, row.data) : undefined;
  }

  listSessions(filter: { targetType?: string; targetKey?: string; status?: SessionStatus; limit: number }): SessionRecord[] {
    return this.q.listSessions
      .all(filter.targetType ?? null, filter.targetKey ?? null, filter.status ?? null, filter.limit)
      .map((row) => decode(SessionRecordSchema, "builder_sessions", row.id, row.data));
  }

  insertChangeSet(changeSet: ChangeSetRecord): void {
    this.q.insertChangeSet.run(changeSet.id, changeSet.sessionId, changeSet.version, changeSet.status, JSON.stringify(changeSet), changeSet.createdAt, changeSet.updatedAt);
  }

  updateChangeSet(changeSet: ChangeSetRecord): void {
    this.q.updateChangeSet.run(changeSet.status, JSON.stringify(changeSet), changeSet.updatedAt, changeSet.id);
  }

  getChangeSet(id: string): ChangeSetRecord | undefined {
    const row = this.q.selectChangeSet.get(id);
    return row ? decode(ChangeSetRecordSchema, "builder_change_sets", id, row.data) : undefined;
  }

  listChangeSets(sessionId: string): ChangeSetRecord[] {
    return this.q.listChangeSets.all(sessionId).map((row) => decode(ChangeSetRecordSchema, "builder_change_sets", row.id, row.data));
  }

  /** Change sets that can still be validated, applied or discarded (see `isOpenChangeSet`). */
  openChangeSets(sessionId: string): ChangeSetRecord[] {
    return this.q.openChangeSets
      .all(sessionId)
      .map((row) => decode(ChangeSetRecordSchema, "builder_change_sets", row.id, row.data))
      .filter(isOpenChangeSet);
  }

  nextVersion(sessionId: string): number {
    return (this.q.lastVersion.get(sessionId)?.version ?? 0) + 1;
  }

  overlay(sessionId: string): OverlayEntry[] {
    return this.q.selectOverlay.all(sessionId).map((row) => decode(OverlayEntrySchema, "builder_working_copy", `${sessionId}/${row.object_type}/${row.object_key}`, row.entry));
  }

  putOverlay(sessionId: string, entries: readonly OverlayEntry[], now: number): void {
    for (const entry of entries) this.q.upsertOverlay.run(sessionId, entry.type, entry.key, JSON.stringify(entry), now);
  }

  clearOverlay(sessionId: string): void {
    this.q.clearOverlay.run(sessionId);
  }

  appendAudit(sessionId: string, type: AuditEventType, data: Record<string, unknown>, at = Date.now()): void {
    this.q.insertAudit.run(sessionId, type, this.redactor.json(JSON.stringify(data)), at);
  }

  listAudit(sessionId: string, afterId: number, limit: number): AuditEvent[] {
    return this.q.listAudit.all(sessionId, afterId, limit).map((row) => ({
      id: row.id,
      sessionId: row.session_id,
      type: AuditEventTypeSchema.parse(row.type),
      data: JSON.parse(row.data) as Record<string, unknown>,
      at: row.created_at,
    }));
  }
}
