import { num } from "../storage/row-values.ts";
import type { TokenRecord, UserRecord } from "./account-records.ts";
import { RoleSchema } from "./roles.ts";

/** A `users` row as both engines read it (PostgreSQL hands its BIGINT times over as text). */
export interface UserRow {
  id: string;
  username: string;
  name: string;
  role: string;
  password_hash: string | null;
  created_at: number | string;
  updated_at: number | string;
}

/** A `user_tokens` row as both engines read it. */
export interface TokenRow {
  id: string;
  user_id: string;
  name: string;
  hash: string;
  created_at: number | string;
  last_used_at: number | string | null;
}

export function userOf(row: UserRow): UserRecord {
  // The CHECK constraint keeps other roles out; parsing says so to the type checker too.
  return { id: row.id, username: row.username, name: row.name, role: RoleSchema.parse(row.role), passwordHash: row.password_hash, createdAt: num(row.created_at), updatedAt: num(row.updated_at) };
}

export function tokenOf(row: TokenRow): TokenRecord {
  return { id: row.id, userId: row.user_id, name: row.name, hash: row.hash, createdAt: num(row.created_at), lastUsedAt: row.last_used_at === null ? null : num(row.last_used_at) };
}
