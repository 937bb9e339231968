import type { SessionStatus } from "@weft/types";
import type { OverlayEntry } from "../domain/change-set.ts";
import type { AuditEvent, AuditEventType, ChangeSetRecord, SessionRecord } from "../domain/records.ts";

export interface SessionFilter {
  targetType?: string;
  targetKey?: string;
  status?: SessionStatus;
  limit: number;
}

/**
 * The Builder's own tables (seed 001 §4.2–4.5): sessions, staged change sets, each session's working
 * copy and the audit events. One interface, on SQLite and on PostgreSQL; both live on the server
 * storage's connection, so `transaction` spans these tables and the stored documents (apply writes both, all or nothing).
 */
export interface BuilderStore {
  /**
   * Runs `work` in the server storage's transaction: every write in it, the Builder's and the documents',
   * is stored, or none. `work` awaits only storage calls (no model or file I/O), and opens no nested transaction.
   */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  insertSession(session: SessionRecord): Promise<void>;
  updateSession(session: SessionRecord): Promise<void>;
  getSession(id: string): Promise<SessionRecord | undefined>;
  /**
   * The session, read to be changed: inside `transaction` the session stays locked until it ends, so two
   * writers of one session (a stage and an apply) take turns on PostgreSQL; SQLite's transactions take turns already.
   */
  lockSession(id: string): Promise<SessionRecord | undefined>;
  /** Newest first (by `updatedAt`). */
  listSessions(filter: SessionFilter): Promise<SessionRecord[]>;
  insertChangeSet(changeSet: ChangeSetRecord): Promise<void>;
  updateChangeSet(changeSet: ChangeSetRecord): Promise<void>;
  getChangeSet(id: string): Promise<ChangeSetRecord | undefined>;
  /** By version. */
  listChangeSets(sessionId: string): Promise<ChangeSetRecord[]>;
  /** Change sets that can still be validated, applied or discarded (see `isOpenChangeSet`). */
  openChangeSets(sessionId: string): Promise<ChangeSetRecord[]>;
  nextVersion(sessionId: string): Promise<number>;
  /** The session's working copy, by object type then key. */
  overlay(sessionId: string): Promise<OverlayEntry[]>;
  /** Inserts or replaces each entry (by type and key). */
  putOverlay(sessionId: string, entries: readonly OverlayEntry[], now: number): Promise<void>;
  clearOverlay(sessionId: string): Promise<void>;
  appendAudit(sessionId: string, type: AuditEventType, data: Record<string, unknown>, at?: number): Promise<void>;
  /** The session's events after `afterId`, oldest first. */
  listAudit(sessionId: string, afterId: number, limit: number): Promise<AuditEvent[]>;
}
