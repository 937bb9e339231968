import type { ColumnType, Selectable } from "kysely";
import type { Int64Column as Millis } from "../storage/ddl.ts";
import { num } from "../storage/row-values.ts";
import { Table, type TableEngine } from "../storage/table.ts";
import type { AccountRepository, SessionRecord, TokenRecord, UserRecord, UserUpdate } from "./account-records.ts";
import { RoleSchema } from "./roles.ts";

/** The accounts' tables (account-migrations.ts). */
interface AccountTables {
  users: { id: string; username: string; name: string; role: string; password_hash: string | null; created_at: Millis; updated_at: Millis };
  user_sessions: { hash: string; user_id: string; created_at: Millis; expires_at: Millis };
  user_tokens: { id: string; user_id: string; name: string; hash: string; created_at: Millis; last_used_at: ColumnType<number | string | null, number | null, number> };
}

const USER_COLUMNS = ["u.id", "u.username", "u.name", "u.role", "u.password_hash", "u.created_at", "u.updated_at"] as const;

function userOf(row: Selectable<AccountTables["users"]>): UserRecord {
  // The CHECK constraint keeps other roles out; parsing says so to the type checker too.
  return { id: row.id, username: row.username, name: row.name, role: RoleSchema.parse(row.role), passwordHash: row.password_hash, createdAt: num(row.created_at), updatedAt: num(row.updated_at) };
}

/** Users, sessions and personal tokens (ACCOUNT_MIGRATIONS' tables); as every Table's, its queries join `Storage.transaction`. */
export class AccountTable extends Table<AccountTables, TableEngine> implements AccountRepository {
  private users() {
    return this.db.selectFrom("users as u").select(USER_COLUMNS);
  }

  async insertUser(user: UserRecord): Promise<void> {
    if (!(await this.insertUserIfAbsent(user))) throw new Error(`a user with id "${user.id}" exists already`);
  }

  async insertUserIfAbsent(user: UserRecord): Promise<boolean> {
    const row = { id: user.id, username: user.username, name: user.name, role: user.role, password_hash: user.passwordHash, created_at: user.createdAt, updated_at: user.updatedAt };
    // No conflict target: a racing insert of the same user can trip the username index before the id one, which
    // `ON CONFLICT (id)` does not catch. Only the same id means the user is present; a taken username stays an error.
    if ((await this.upsertRows("users", [], [row], "all")) === 1) return true;
    if (await this.getUser(user.id)) return false;
    throw new Error(`username "${user.username}" is taken by another user`);
  }

  async getUser(id: string): Promise<UserRecord | undefined> {
    const row = await this.users().where("u.id", "=", id).executeTakeFirst();
    return row ? userOf(row) : undefined;
  }

  async getUserByUsername(username: string): Promise<UserRecord | undefined> {
    const row = await this.users().where("u.username", "=", username).executeTakeFirst();
    return row ? userOf(row) : undefined;
  }

  async listUsers(): Promise<UserRecord[]> {
    return (await this.users().orderBy("u.created_at").orderBy("u.username").execute()).map(userOf);
  }

  async updateUser(id: string, update: UserUpdate, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable("users")
      // Kysely leaves undefined fields out: only what the update names changes.
      .set({ updated_at: now, name: update.name, role: update.role, password_hash: update.passwordHash })
      .where("id", "=", id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Sessions and tokens go with the user by ON DELETE CASCADE (storage/database.ts turns SQLite's foreign keys on): one statement, all or nothing. */
  async deleteUser(id: string): Promise<boolean> {
    return (await this.db.deleteFrom("users").where("id", "=", id).executeTakeFirst()).numDeletedRows > 0n;
  }

  async insertSession(session: SessionRecord): Promise<void> {
    await this.db.insertInto("user_sessions").values({ hash: session.hash, user_id: session.userId, created_at: session.createdAt, expires_at: session.expiresAt }).execute();
  }

  async sessionUser(hash: string, now: number): Promise<UserRecord | undefined> {
    const row = await this.users().innerJoin("user_sessions as s", "s.user_id", "u.id").where("s.hash", "=", hash).where("s.expires_at", ">", now).executeTakeFirst();
    return row ? userOf(row) : undefined;
  }

  async deleteSession(hash: string): Promise<void> {
    await this.db.deleteFrom("user_sessions").where("hash", "=", hash).execute();
  }

  async deleteSessionsOf(userId: string): Promise<number> {
    return Number((await this.db.deleteFrom("user_sessions").where("user_id", "=", userId).executeTakeFirst()).numDeletedRows);
  }

  async deleteTokensOf(userId: string): Promise<number> {
    return Number((await this.db.deleteFrom("user_tokens").where("user_id", "=", userId).executeTakeFirst()).numDeletedRows);
  }

  async deleteExpiredSessions(now: number): Promise<number> {
    return Number((await this.db.deleteFrom("user_sessions").where("expires_at", "<=", now).executeTakeFirst()).numDeletedRows);
  }

  async insertToken(token: TokenRecord): Promise<void> {
    await this.db.insertInto("user_tokens").values({ id: token.id, user_id: token.userId, name: token.name, hash: token.hash, created_at: token.createdAt, last_used_at: token.lastUsedAt }).execute();
  }

  async listTokens(userId: string): Promise<TokenRecord[]> {
    const rows = await this.db.selectFrom("user_tokens").selectAll().where("user_id", "=", userId).orderBy("created_at").orderBy("id").execute();
    return rows.map((r) => ({ id: r.id, userId: r.user_id, name: r.name, hash: r.hash, createdAt: num(r.created_at), lastUsedAt: r.last_used_at === null ? null : num(r.last_used_at) }));
  }

  async tokenUser(hash: string, now: number): Promise<{ user: UserRecord; tokenId: string } | undefined> {
    const row = await this.users().innerJoin("user_tokens as t", "t.user_id", "u.id").select("t.id as token_id").where("t.hash", "=", hash).executeTakeFirst();
    if (!row) return undefined;
    // At most one write a minute per token: a script's every request must not become a write.
    await this.db
      .updateTable("user_tokens")
      .set({ last_used_at: now })
      .where("id", "=", row.token_id)
      .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", now - 60_000)]))
      .execute();
    return { user: userOf(row), tokenId: row.token_id };
  }

  async deleteToken(userId: string, id: string): Promise<boolean> {
    return (await this.db.deleteFrom("user_tokens").where("user_id", "=", userId).where("id", "=", id).executeTakeFirst()).numDeletedRows > 0n;
  }
}
