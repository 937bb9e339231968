import type { PostgresMigration } from "../../storage/postgres/migrations.ts";

/**
 * The Builder AI's tables (seed 001 §4.2–4.5): sessions, staged change sets, each session's working
 * copy (the overlay over the stored objects) and the audit events. SQLite: registered in storage/migrations.ts.
 */
export const BUILDER_MIGRATION = {
  version: 3,
  name: "builder ai sessions, change sets, working copies, audit events",
  sql: `
    CREATE TABLE builder_sessions (
      id TEXT PRIMARY KEY,
      target_type TEXT NOT NULL,
      target_key TEXT NOT NULL,
      status TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE INDEX builder_sessions_by_target ON builder_sessions (target_type, target_key, updated_at DESC);
    CREATE INDEX builder_sessions_by_updated ON builder_sessions (updated_at DESC);
    CREATE TABLE builder_change_sets (
      id TEXT PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES builder_sessions (id) ON DELETE CASCADE,
      version INTEGER NOT NULL,
      status TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      UNIQUE (session_id, version)
    );
    CREATE TABLE builder_working_copy (
      session_id TEXT NOT NULL REFERENCES builder_sessions (id) ON DELETE CASCADE,
      object_type TEXT NOT NULL,
      object_key TEXT NOT NULL,
      entry TEXT NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (session_id, object_type, object_key)
    ) WITHOUT ROWID;
    CREATE TABLE builder_audit_events (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      session_id TEXT NOT NULL,
      type TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX builder_audit_by_session ON builder_audit_events (session_id, id);
  `,
};

/**
 * The same tables in PostgreSQL, append-only (registered in storage/postgres/migrations.ts). Times are
 * epoch milliseconds (BIGINT); records stay JSON text, decoded by the same schemas as on SQLite.
 */
export const BUILDER_POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    id: "builder-001 sessions, change sets, working copies, audit events",
    sql: `
    CREATE TABLE builder_sessions (
      id TEXT PRIMARY KEY,
      target_type TEXT NOT NULL,
      target_key TEXT NOT NULL,
      status TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    );
    CREATE INDEX builder_sessions_by_target ON builder_sessions (target_type, target_key, updated_at DESC);
    CREATE INDEX builder_sessions_by_updated ON builder_sessions (updated_at DESC);
    CREATE TABLE builder_change_sets (
      id TEXT PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES builder_sessions (id) ON DELETE CASCADE,
      version INTEGER NOT NULL,
      status TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      UNIQUE (session_id, version)
    );
    CREATE TABLE builder_working_copy (
      session_id TEXT NOT NULL REFERENCES builder_sessions (id) ON DELETE CASCADE,
      object_type TEXT NOT NULL,
      object_key TEXT NOT NULL,
      entry TEXT NOT NULL,
      updated_at BIGINT NOT NULL,
      PRIMARY KEY (session_id, object_type, object_key)
    );
    CREATE TABLE builder_audit_events (
      id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      session_id TEXT NOT NULL,
      type TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at BIGINT NOT NULL
    );
    CREATE INDEX builder_audit_by_session ON builder_audit_events (session_id, id);
  `,
  },
];
