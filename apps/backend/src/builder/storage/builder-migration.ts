import { sql } from "kysely";
import type { Migration } from "../../storage/migrations.ts";

/**
 * The Builder AI's tables (seed 001 §4.2–4.5): sessions, staged change sets, each session's working copy
 * (the overlay over the stored objects) and the audit events. Times are epoch milliseconds; records stay
 * JSON text. A SQLite file of e5dc891 has this step as its schema version 3 (`PRAGMA user_version` ≥ 3).
 */
export const BUILDER_MIGRATIONS: readonly Migration[] = [
  {
    id: "builder-001 sessions, change sets, working copies, audit events",
    async up(db, engine) {
      const millis = engine === "sqlite" ? "integer" : "bigint";
      await db.schema
        .createTable("builder_sessions")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("target_type", "text", (c) => c.notNull())
        .addColumn("target_key", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("data", "text", (c) => c.notNull())
        .addColumn("created_at", millis, (c) => c.notNull())
        .addColumn("updated_at", millis, (c) => c.notNull())
        .execute();
      await db.schema.createIndex("builder_sessions_by_target").on("builder_sessions").columns(["target_type", "target_key", "updated_at desc"]).execute();
      await db.schema.createIndex("builder_sessions_by_updated").on("builder_sessions").column("updated_at desc").execute();
      await db.schema
        .createTable("builder_change_sets")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("session_id", "text", (c) => c.notNull().references("builder_sessions.id").onDelete("cascade"))
        .addColumn("version", "integer", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("data", "text", (c) => c.notNull())
        .addColumn("created_at", millis, (c) => c.notNull())
        .addColumn("updated_at", millis, (c) => c.notNull())
        // PostgreSQL's name for an unnamed UNIQUE (session_id, version), as e5dc891 made it.
        .addUniqueConstraint("builder_change_sets_session_id_version_key", ["session_id", "version"])
        .execute();
      await db.schema
        .createTable("builder_working_copy")
        .addColumn("session_id", "text", (c) => c.notNull().references("builder_sessions.id").onDelete("cascade"))
        .addColumn("object_type", "text", (c) => c.notNull())
        .addColumn("object_key", "text", (c) => c.notNull())
        .addColumn("entry", "text", (c) => c.notNull())
        .addColumn("updated_at", millis, (c) => c.notNull())
        .addPrimaryKeyConstraint("builder_working_copy_pkey", ["session_id", "object_type", "object_key"])
        .$call((t) => (engine === "sqlite" ? t.modifyEnd(sql`without rowid`) : t))
        .execute();
      await db.schema
        .createTable("builder_audit_events")
        .$call((t) => (engine === "sqlite" ? t.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement()) : t.addColumn("id", "bigint", (c) => c.primaryKey().generatedAlwaysAsIdentity())))
        .addColumn("session_id", "text", (c) => c.notNull())
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("data", "text", (c) => c.notNull())
        .addColumn("created_at", millis, (c) => c.notNull())
        .execute();
      await db.schema.createIndex("builder_audit_by_session").on("builder_audit_events").columns(["session_id", "id"]).execute();
    },
  },
];
