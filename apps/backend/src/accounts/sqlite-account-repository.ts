import type { Database } from "bun:sqlite";
import type { AccountRepository, SessionRecord, TokenRecord, UserRecord, UserUpdate } from "./account-records.ts";
import { tokenOf, userOf, type TokenRow, type UserRow } from "./account-rows.ts";
import { migrateSqliteAccounts } from "./account-migrations.ts";

const USER_COLUMNS = "u.id, u.username, u.name, u.role, u.password_hash, u.created_at, u.updated_at";

/**
 * The SQLite connection as the storage shares it (structurally `SqliteHandle` of storage/sql-handle.ts):
 * statements go through `gate`, so none joins another caller's open transaction.
 */
export interface SqliteConnection {
  db: Database;
  gate<T>(work: () => T): Promise<Awaited<T>>;
}

/** Users, sessions and personal tokens in the server's SQLite file (tables of their own, see account-migrations.ts). */
export class SqliteAccountRepository implements AccountRepository {
  private readonly db: Database;

  constructor(private readonly connection: SqliteConnection) {
    this.db = connection.db;
    migrateSqliteAccounts(this.db);
  }

  private gate<T>(work: () => T): Promise<Awaited<T>> {
    return this.connection.gate(work);
  }

  insertUser(user: UserRecord): Promise<void> {
    return this.gate(() => {
      this.db
        .query("INSERT INTO users (id, username, name, role, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
        .run(user.id, user.username, user.name, user.role, user.passwordHash, user.createdAt, user.updatedAt);
    });
  }

  insertUserIfAbsent(user: UserRecord): Promise<boolean> {
    return this.gate(
      () =>
        this.db
          .query("INSERT INTO users (id, username, name, role, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING")
          .run(user.id, user.username, user.name, user.role, user.passwordHash, user.createdAt, user.updatedAt).changes === 1,
    );
  }

  getUser(id: string): Promise<UserRecord | undefined> {
    return this.gate(() => {
      const row = this.db.query(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id = ?`).get(id) as UserRow | null;
      return row ? userOf(row) : undefined;
    });
  }

  getUserByUsername(username: string): Promise<UserRecord | undefined> {
    return this.gate(() => {
      const row = this.db.query(`SELECT ${USER_COLUMNS} FROM users u WHERE u.username = ?`).get(username) as UserRow | null;
      return row ? userOf(row) : undefined;
    });
  }

  listUsers(): Promise<UserRecord[]> {
    return this.gate(() => {
      return (this.db.query(`SELECT ${USER_COLUMNS} FROM users u ORDER BY u.created_at, u.username`).all() as UserRow[]).map(userOf);
    });
  }

  updateUser(id: string, update: UserUpdate, now: number): Promise<boolean> {
    return this.gate(() => {
      const result = this.db
        .query("UPDATE users SET name = COALESCE(?, name), role = COALESCE(?, role), password_hash = COALESCE(?, password_hash), updated_at = ? WHERE id = ?")
        .run(update.name ?? null, update.role ?? null, update.passwordHash ?? null, now, id);
      return result.changes > 0;
    });
  }

  deleteUser(id: string): Promise<boolean> {
    return this.gate(() => {
      return this.db.transaction(() => {
        // Explicit as well as ON DELETE CASCADE: the cascade needs foreign_keys on, which a copied file may not have.
        this.db.query("DELETE FROM user_sessions WHERE user_id = ?").run(id);
        this.db.query("DELETE FROM user_tokens WHERE user_id = ?").run(id);
        return this.db.query("DELETE FROM users WHERE id = ?").run(id).changes > 0;
      })();
    });
  }

  insertSession(session: SessionRecord): Promise<void> {
    return this.gate(() => {
      this.db.query("INSERT INTO user_sessions (hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)").run(session.hash, session.userId, session.createdAt, session.expiresAt);
    });
  }

  sessionUser(hash: string, now: number): Promise<UserRecord | undefined> {
    return this.gate(() => {
      const row = this.db.query(`SELECT ${USER_COLUMNS} FROM user_sessions s JOIN users u ON u.id = s.user_id WHERE s.hash = ? AND s.expires_at > ?`).get(hash, now) as UserRow | null;
      return row ? userOf(row) : undefined;
    });
  }

  deleteSession(hash: string): Promise<void> {
    return this.gate(() => {
      this.db.query("DELETE FROM user_sessions WHERE hash = ?").run(hash);
    });
  }

  deleteSessionsOf(userId: string): Promise<number> {
    return this.gate(() => {
      return this.db.query("DELETE FROM user_sessions WHERE user_id = ?").run(userId).changes;
    });
  }

  deleteTokensOf(userId: string): Promise<number> {
    return this.gate(() => {
      return this.db.query("DELETE FROM user_tokens WHERE user_id = ?").run(userId).changes;
    });
  }

  deleteExpiredSessions(now: number): Promise<number> {
    return this.gate(() => this.db.query("DELETE FROM user_sessions WHERE expires_at <= ?").run(now).changes);
  }

  insertToken(token: TokenRecord): Promise<void> {
    return this.gate(() => {
      this.db
        .query("INSERT INTO user_tokens (id, user_id, name, hash, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?)")
        .run(token.id, token.userId, token.name, token.hash, token.createdAt, token.lastUsedAt);
    });
  }

  listTokens(userId: string): Promise<TokenRecord[]> {
    return this.gate(() => {
      return (this.db.query("SELECT id, user_id, name, hash, created_at, last_used_at FROM user_tokens WHERE user_id = ? ORDER BY created_at, id").all(userId) as TokenRow[]).map(tokenOf);
    });
  }

  tokenUser(hash: string, now: number): Promise<{ user: UserRecord; tokenId: string } | undefined> {
    return this.gate(() => {
      const row = this.db.query(`SELECT ${USER_COLUMNS}, t.id AS token_id FROM user_tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ?`).get(hash) as (UserRow & { token_id: string }) | null;
      if (!row) return undefined;
      // At most one write a minute per token: a script's every request must not become a write.
      this.db.query("UPDATE user_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)").run(now, row.token_id, now - 60_000);
      return { user: userOf(row), tokenId: row.token_id };
    });
  }

  deleteToken(userId: string, id: string): Promise<boolean> {
    return this.gate(() => {
      return this.db.query("DELETE FROM user_tokens WHERE user_id = ? AND id = ?").run(userId, id).changes > 0;
    });
  }
}
