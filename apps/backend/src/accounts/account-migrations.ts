import { sql } from "kysely";
import type { Migration } from "../storage/migrations.ts";

/**
 * The accounts' tables, one list for both engines (given to the storage by ../schema.ts). Times are epoch
 * milliseconds: INTEGER on SQLite, BIGINT on PostgreSQL. A SQLite file of e5dc891 has this step as
 * `module_schema` ('accounts', 1).
 */
export const ACCOUNT_MIGRATIONS: readonly Migration[] = [
  {
    id: "accounts-001 users, sessions, personal tokens",
    async up(db, engine) {
      const millis = engine === "sqlite" ? "integer" : "bigint";
      await db.schema
        .createTable("users")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("username", "text", (c) => c.notNull().unique())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("role", "text", (c) => c.notNull().check(sql`role IN ('owner', 'editor', 'viewer')`))
        .addColumn("password_hash", "text")
        .addColumn("created_at", millis, (c) => c.notNull())
        .addColumn("updated_at", millis, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("user_sessions")
        .addColumn("hash", "text", (c) => c.primaryKey())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("created_at", millis, (c) => c.notNull())
        .addColumn("expires_at", millis, (c) => c.notNull())
        .execute();
      await db.schema.createIndex("user_sessions_by_user").on("user_sessions").column("user_id").execute();
      await db.schema
        .createTable("user_tokens")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("hash", "text", (c) => c.notNull().unique())
        .addColumn("created_at", millis, (c) => c.notNull())
        .addColumn("last_used_at", millis)
        .execute();
      await db.schema.createIndex("user_tokens_by_user").on("user_tokens").column("user_id").execute();
    },
  },
];
