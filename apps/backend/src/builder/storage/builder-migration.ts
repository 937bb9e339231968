import type { Migration } from "../../storage/migrations.ts";
import { ddlStep } from "../../storage/ddl.ts";

/** The Builder AI's tables (seed 001 §4.2–4.5); records stay JSON text. A SQLite file of e5dc891 has it as user_version 3. */
export const BUILDER_MIGRATIONS: readonly Migration[] = [
  ddlStep("builder-001 sessions, change sets, working copies, audit events", ({ time, identity, withoutRowid }) => {
    const session = "session_id text NOT NULL REFERENCES builder_sessions (id) ON DELETE CASCADE";
    return [
      `CREATE TABLE builder_sessions (id text PRIMARY KEY, target_type text NOT NULL, target_key text NOT NULL, status text NOT NULL, data text NOT NULL,
          created_at ${time} NOT NULL, updated_at ${time} NOT NULL)`,
      `CREATE INDEX builder_sessions_by_target ON builder_sessions (target_type, target_key, updated_at DESC)`,
      `CREATE INDEX builder_sessions_by_updated ON builder_sessions (updated_at DESC)`,
      `CREATE TABLE builder_change_sets (id text PRIMARY KEY, ${session}, version integer NOT NULL, status text NOT NULL, data text NOT NULL,
          created_at ${time} NOT NULL, updated_at ${time} NOT NULL, UNIQUE (session_id, version))`,
      `CREATE TABLE builder_working_copy (${session}, object_type text NOT NULL, object_key text NOT NULL, entry text NOT NULL,
          updated_at ${time} NOT NULL, PRIMARY KEY (session_id, object_type, object_key))${withoutRowid}`,
      `CREATE TABLE builder_audit_events (id ${identity}, session_id text NOT NULL, type text NOT NULL, data text NOT NULL, created_at ${time} NOT NULL)`,
      `CREATE INDEX builder_audit_by_session ON builder_audit_events (session_id, id)`,
    ];
  }),
];
