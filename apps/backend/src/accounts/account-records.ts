import { z } from "zod";
import { RoleSchema } from "./roles.ts";

/** A user as stored: the password hash never leaves the accounts module (see `UserView`). */
export interface UserRecord {
  id: string;
  /** Lower-case, unique: what the user types on the login page. */
  username: string;
  /** What the editor shows; the username when none was given. */
  name: string;
  role: z.infer<typeof RoleSchema>;
  /** `Bun.password` (argon2id) PHC string; null for the bootstrap owner, who signs in with the access token. */
  passwordHash: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A user as the API answers. */
export const UserViewSchema = z.object({
  id: z.string(),
  username: z.string(),
  name: z.string(),
  role: RoleSchema,
  hasPassword: z.boolean(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type UserView = z.infer<typeof UserViewSchema>;

export function userView(user: UserRecord): UserView {
  return { id: user.id, username: user.username, name: user.name, role: user.role, hasPassword: user.passwordHash !== null, createdAt: user.createdAt, updatedAt: user.updatedAt };
}

/** A signed-in editor: the cookie holds a secret whose SHA-256 is `hash`. */
export interface SessionRecord {
  hash: string;
  userId: string;
  createdAt: number;
  expiresAt: number;
}

/** A personal API token: shown once when created, stored as its SHA-256 only. */
export interface TokenRecord {
  id: string;
  userId: string;
  name: string;
  hash: string;
  createdAt: number;
  lastUsedAt: number | null;
}

export const TokenViewSchema = z.object({ id: z.string(), name: z.string(), createdAt: z.number(), lastUsedAt: z.number().nullable() });
export type TokenView = z.infer<typeof TokenViewSchema>;

export function tokenView(token: TokenRecord): TokenView {
  return { id: token.id, name: token.name, createdAt: token.createdAt, lastUsedAt: token.lastUsedAt };
}

/** The fields of a user an owner may change. */
export interface UserUpdate {
  name?: string;
  role?: UserRecord["role"];
  passwordHash?: string;
}

/** The accounts' storage, one implementation per engine; every method async (PostgreSQL is). */
export interface AccountRepository {
  insertUser(user: UserRecord): Promise<void>;
  /** Inserts the user unless one has its id already (several processes starting at once); whether it did. */
  insertUserIfAbsent(user: UserRecord): Promise<boolean>;
  getUser(id: string): Promise<UserRecord | undefined>;
  getUserByUsername(username: string): Promise<UserRecord | undefined>;
  listUsers(): Promise<UserRecord[]>;
  /** False when there is no such user. */
  updateUser(id: string, update: UserUpdate, now: number): Promise<boolean>;
  /** Deletes the user with their sessions and tokens; false when there was none. */
  deleteUser(id: string): Promise<boolean>;

  insertSession(session: SessionRecord): Promise<void>;
  /** The live session's user (not expired at `now`). */
  sessionUser(hash: string, now: number): Promise<UserRecord | undefined>;
  deleteSession(hash: string): Promise<void>;
  /** Ends every session of a user (a changed password, a changed role is kept: it applies at the next request). */
  deleteSessionsOf(userId: string): Promise<number>;
  /** Revokes every personal API token of a user (an owner's password reset). */
  deleteTokensOf(userId: string): Promise<number>;
  /** Removes the sessions expired at `now` (they open nothing already; this keeps the table small). */
  deleteExpiredSessions(now: number): Promise<number>;

  insertToken(token: TokenRecord): Promise<void>;
  listTokens(userId: string): Promise<TokenRecord[]>;
  /** The token's user, and records the use at `now`. */
  tokenUser(hash: string, now: number): Promise<{ user: UserRecord; tokenId: string } | undefined>;
  /** False when the user has no such token. */
  deleteToken(userId: string, id: string): Promise<boolean>;
}
