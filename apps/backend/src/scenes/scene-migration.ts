import type { Migration } from "../storage/migrations.ts";
import { ddlStep } from "../storage/ddl.ts";

/**
 * The scenes' tables. A SQLite file of e5dc891 has scenes-001 as its schema version 4 and scenes-002 as
 * version 8 (`PRAGMA user_version`).
 */
export const SCENE_MIGRATIONS: readonly Migration[] = [
  // The runtime state of each scene (replaced on every save), its session log (appended, numbered per
  // scene) and which conversation each agent instance of the session uses.
  ddlStep("scenes-001 scene runtime state, session log and sessions", ({ time, withoutRowid }) => [
    `CREATE TABLE scene_states (scene_id text PRIMARY KEY, status text NOT NULL, data text NOT NULL, saved_at ${time} NOT NULL)`,
    `CREATE TABLE scene_log (scene_id text NOT NULL, seq integer NOT NULL, kind text NOT NULL, data text NOT NULL, PRIMARY KEY (scene_id, seq))${withoutRowid}`,
    `CREATE TABLE scene_sessions (scene_id text PRIMARY KEY, data text NOT NULL, started_at ${time} NOT NULL)`,
  ]),
  // The state saved in parts (issue #22, scene-state-store-parts.ts): mailboxes and recent world changes in rows of
  // their own, `write_mark` the last write of a store instance. Rows written before (`layout` "whole") read as they are.
  ddlStep("scenes-002 scene state saved in parts", ({ int64, withoutRowid }) => [
    `CREATE TABLE scene_state_parts (scene_id text NOT NULL, kind text NOT NULL, key text NOT NULL, data text NOT NULL, PRIMARY KEY (scene_id, kind, key))${withoutRowid}`,
    `CREATE TABLE scene_world_changes (scene_id text NOT NULL, seq ${int64} NOT NULL, data text NOT NULL, PRIMARY KEY (scene_id, seq))${withoutRowid}`,
    `ALTER TABLE scene_states ADD COLUMN layout text NOT NULL DEFAULT 'whole'`,
    `ALTER TABLE scene_states ADD COLUMN write_mark text`,
  ]),
];
