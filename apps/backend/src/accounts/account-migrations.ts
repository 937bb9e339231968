import type { Migration } from "../storage/migrations.ts";
import { ddlStep } from "../storage/ddl.ts";

/**
 * The accounts' tables, one list for both engines (given to the storage by ../schema.ts). Times are epoch
 * milliseconds: INTEGER on SQLite, BIGINT on PostgreSQL. A SQLite file of e5dc891 has this step as
 * `module_schema` ('accounts', 1).
 */
export const ACCOUNT_MIGRATIONS: readonly Migration[] = [
  ddlStep("accounts-001 users, sessions, personal tokens", ({ time }) => [
    `CREATE TABLE users (id text PRIMARY KEY, username text NOT NULL UNIQUE, name text NOT NULL, role text NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
          password_hash text, created_at ${time} NOT NULL, updated_at ${time} NOT NULL)`,
    `CREATE TABLE user_sessions (hash text PRIMARY KEY, user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
          created_at ${time} NOT NULL, expires_at ${time} NOT NULL)`,
    `CREATE INDEX user_sessions_by_user ON user_sessions (user_id)`,
    `CREATE TABLE user_tokens (id text PRIMARY KEY, user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE, name text NOT NULL,
          hash text NOT NULL UNIQUE, created_at ${time} NOT NULL, last_used_at ${time})`,
    `CREATE INDEX user_tokens_by_user ON user_tokens (user_id)`,
  ]),
];
