import { sql, type CreateTableBuilder } from "kysely";
import type { Migration } from "../storage/migrations.ts";

/** SQLite keeps these tables' rows in their key's b-tree; PostgreSQL has no such option. */
const withoutRowid = <T extends string, C extends string>(t: CreateTableBuilder<T, C>, engine: "sqlite" | "postgres") => (engine === "sqlite" ? t.modifyEnd(sql`without rowid`) : t);

/**
 * The scenes' tables. A SQLite file of e5dc891 has scenes-001 as its schema version 4 and scenes-002 as
 * version 8 (`PRAGMA user_version`).
 */
export const SCENE_MIGRATIONS: readonly Migration[] = [
  {
    // The runtime state of each scene (replaced on every save), its session log (appended, numbered per
    // scene) and which conversation each agent instance of the session uses.
    id: "scenes-001 scene runtime state, session log and sessions",
    async up(db, engine) {
      const millis = engine === "sqlite" ? "integer" : "bigint";
      await db.schema
        .createTable("scene_states")
        .addColumn("scene_id", "text", (c) => c.primaryKey())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("data", "text", (c) => c.notNull())
        .addColumn("saved_at", millis, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("scene_log")
        .addColumn("scene_id", "text", (c) => c.notNull())
        .addColumn("seq", "integer", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("data", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("scene_log_pkey", ["scene_id", "seq"])
        .$call((t) => withoutRowid(t, engine))
        .execute();
      await db.schema
        .createTable("scene_sessions")
        .addColumn("scene_id", "text", (c) => c.primaryKey())
        .addColumn("data", "text", (c) => c.notNull())
        .addColumn("started_at", millis, (c) => c.notNull())
        .execute();
    },
  },
  {
    // The state saved in parts (issue #22): a scene's state row keeps the small rest of the state (`layout`
    // "parts"), each agent's mailbox has its own row in `scene_state_parts` (kind "mailbox", keyed by instance
    // id), the world's recent changes are rows of `scene_world_changes`, appended and trimmed to what the state
    // keeps. So a step writes only what it changed. `write_mark` names the last write of a store instance (see
    // scene-state-store-parts.ts). Rows written before (`layout` "whole": the whole state in `data`) read as they are.
    id: "scenes-002 scene state saved in parts",
    async up(db, engine) {
      await db.schema
        .createTable("scene_state_parts")
        .addColumn("scene_id", "text", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("key", "text", (c) => c.notNull())
        .addColumn("data", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("scene_state_parts_pkey", ["scene_id", "kind", "key"])
        .$call((t) => withoutRowid(t, engine))
        .execute();
      await db.schema
        .createTable("scene_world_changes")
        .addColumn("scene_id", "text", (c) => c.notNull())
        .addColumn("seq", engine === "sqlite" ? "integer" : "bigint", (c) => c.notNull())
        .addColumn("data", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("scene_world_changes_pkey", ["scene_id", "seq"])
        .$call((t) => withoutRowid(t, engine))
        .execute();
      await db.schema
        .alterTable("scene_states")
        .addColumn("layout", "text", (c) => c.notNull().defaultTo("whole"))
        .execute();
      await db.schema.alterTable("scene_states").addColumn("write_mark", "text").execute();
    },
  },
];
