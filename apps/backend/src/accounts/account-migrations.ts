import type { Database } from "bun:sqlite";
import { migrateSqliteModule, type SqliteModuleMigration } from "../storage/sqlite-module-migrations.ts";

/**
 * The accounts' tables, in their own append-only list with their own version row (`module_schema`),
 * so they never compete with the storage's numbered migrations for a version.
 */
const SQLITE_MIGRATIONS: SqliteModuleMigration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        username TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
        password_hash TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE user_sessions (
        hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX user_sessions_by_user ON user_sessions (user_id);
      CREATE TABLE user_tokens (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        last_used_at INTEGER
      );
      CREATE INDEX user_tokens_by_user ON user_tokens (user_id);
    `,
  },
];

/** Brings the accounts' SQLite tables up to date, in one transaction per step. */
export function migrateSqliteAccounts(db: Database): void {
  migrateSqliteModule(db, "accounts", SQLITE_MIGRATIONS);
}
