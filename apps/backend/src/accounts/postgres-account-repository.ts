import type { SQL } from "bun";
import type { PostgresMigration } from "../storage/postgres/migrations.ts";
import type { AccountRepository, SessionRecord, TokenRecord, UserRecord, UserUpdate } from "./account-records.ts";
import { tokenOf, userOf, type TokenRow, type UserRow } from "./account-rows.ts";

/** The PostgreSQL connection as the storage shares it (structurally `PostgresHandle` of storage/sql-handle.ts). */
export interface PostgresConnection {
  /** The open `Storage.transaction` of this async context, or the pool. */
  current(): SQL;
}

/** The accounts' PostgreSQL tables, applied with every other module's by storage/postgres/migrations.ts. */
export const ACCOUNTS_POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    id: "accounts-001 users, sessions, personal tokens",
    sql: `
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        username TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
        password_hash TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE TABLE user_sessions (
        hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX user_sessions_by_user ON user_sessions (user_id);
      CREATE TABLE user_tokens (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        created_at BIGINT NOT NULL,
        last_used_at BIGINT
      );
      CREATE INDEX user_tokens_by_user ON user_tokens (user_id);
    `,
  },
];

/** Users, sessions and personal tokens in PostgreSQL (their tables come with the storage's migrations). */
export class PostgresAccountRepository implements AccountRepository {
  constructor(private readonly connection: PostgresConnection) {}

  private get sql(): SQL {
    return this.connection.current();
  }

  async insertUser(user: UserRecord): Promise<void> {
    await this.sql`INSERT INTO users (id, username, name, role, password_hash, created_at, updated_at)
      VALUES (${user.id}, ${user.username}, ${user.name}, ${user.role}, ${user.passwordHash}, ${user.createdAt}, ${user.updatedAt})`;
  }

  async insertUserIfAbsent(user: UserRecord): Promise<boolean> {
    const rows: unknown[] = await this.sql`INSERT INTO users (id, username, name, role, password_hash, created_at, updated_at)
      VALUES (${user.id}, ${user.username}, ${user.name}, ${user.role}, ${user.passwordHash}, ${user.createdAt}, ${user.updatedAt})
      ON CONFLICT DO NOTHING RETURNING id`;
    if (rows.length === 1) return true;
    // No conflict target: a racing insert of the same user can trip the username index before the id one, which
    // `ON CONFLICT (id)` does not catch. Only the same id means the user is present; a taken username stays an error.
    if (await this.getUser(user.id)) return false;
    throw new Error(`username "${user.username}" is taken by another user`);
  }

  async getUser(id: string): Promise<UserRecord | undefined> {
    const rows: UserRow[] = await this.sql`SELECT id, username, name, role, password_hash, created_at, updated_at FROM users WHERE id = ${id}`;
    return rows[0] ? userOf(rows[0]) : undefined;
  }

  async getUserByUsername(username: string): Promise<UserRecord | undefined> {
    const rows: UserRow[] = await this.sql`SELECT id, username, name, role, password_hash, created_at, updated_at FROM users WHERE username = ${username}`;
    return rows[0] ? userOf(rows[0]) : undefined;
  }

  async listUsers(): Promise<UserRecord[]> {
    const rows: UserRow[] = await this.sql`SELECT id, username, name, role, password_hash, created_at, updated_at FROM users ORDER BY created_at, username`;
    return rows.map(userOf);
  }

  async updateUser(id: string, update: UserUpdate, now: number): Promise<boolean> {
    const rows: { id: string }[] = await this.sql`UPDATE users SET name = COALESCE(${update.name ?? null}, name), role = COALESCE(${update.role ?? null}, role),
      password_hash = COALESCE(${update.passwordHash ?? null}, password_hash), updated_at = ${now} WHERE id = ${id} RETURNING id`;
    return rows.length > 0;
  }

  async deleteUser(id: string): Promise<boolean> {
    // ON DELETE CASCADE takes the user's sessions and tokens with them.
    const rows: { id: string }[] = await this.sql`DELETE FROM users WHERE id = ${id} RETURNING id`;
    return rows.length > 0;
  }

  async insertSession(session: SessionRecord): Promise<void> {
    await this.sql`INSERT INTO user_sessions (hash, user_id, created_at, expires_at) VALUES (${session.hash}, ${session.userId}, ${session.createdAt}, ${session.expiresAt})`;
  }

  async sessionUser(hash: string, now: number): Promise<UserRecord | undefined> {
    const rows: UserRow[] = await this.sql`SELECT u.id, u.username, u.name, u.role, u.password_hash, u.created_at, u.updated_at
      FROM user_sessions s JOIN users u ON u.id = s.user_id WHERE s.hash = ${hash} AND s.expires_at > ${now}`;
    return rows[0] ? userOf(rows[0]) : undefined;
  }

  async deleteSession(hash: string): Promise<void> {
    await this.sql`DELETE FROM user_sessions WHERE hash = ${hash}`;
  }

  async deleteSessionsOf(userId: string): Promise<number> {
    const rows: { hash: string }[] = await this.sql`DELETE FROM user_sessions WHERE user_id = ${userId} RETURNING hash`;
    return rows.length;
  }

  async deleteTokensOf(userId: string): Promise<number> {
    const rows: { id: string }[] = await this.sql`DELETE FROM user_tokens WHERE user_id = ${userId} RETURNING id`;
    return rows.length;
  }

  async deleteExpiredSessions(now: number): Promise<number> {
    const rows: { hash: string }[] = await this.sql`DELETE FROM user_sessions WHERE expires_at <= ${now} RETURNING hash`;
    return rows.length;
  }

  async insertToken(token: TokenRecord): Promise<void> {
    await this.sql`INSERT INTO user_tokens (id, user_id, name, hash, created_at, last_used_at)
      VALUES (${token.id}, ${token.userId}, ${token.name}, ${token.hash}, ${token.createdAt}, ${token.lastUsedAt})`;
  }

  async listTokens(userId: string): Promise<TokenRecord[]> {
    const rows: TokenRow[] = await this.sql`SELECT id, user_id, name, hash, created_at, last_used_at FROM user_tokens WHERE user_id = ${userId} ORDER BY created_at, id`;
    return rows.map(tokenOf);
  }

  async tokenUser(hash: string, now: number): Promise<{ user: UserRecord; tokenId: string } | undefined> {
    const rows: (UserRow & { token_id: string })[] = await this.sql`SELECT u.id, u.username, u.name, u.role, u.password_hash, u.created_at, u.updated_at, t.id AS token_id
      FROM user_tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ${hash}`;
    const row = rows[0];
    if (!row) return undefined;
    // At most one write a minute per token: a script's every request must not become a write.
    await this.sql`UPDATE user_tokens SET last_used_at = ${now} WHERE id = ${row.token_id} AND (last_used_at IS NULL OR last_used_at < ${now - 60_000})`;
    return { user: userOf(row), tokenId: row.token_id };
  }

  async deleteToken(userId: string, id: string): Promise<boolean> {
    const rows: { id: string }[] = await this.sql`DELETE FROM user_tokens WHERE user_id = ${userId} AND id = ${id} RETURNING id`;
    return rows.length > 0;
  }
}
