/**
 * Scene sessions: the runtime state of each scene (replaced on every save), its session log
 * (appended, numbered per scene) and which conversation each agent instance of the session uses.
 */
export const SCENE_MIGRATION = {
  version: 4,
  name: "scene runtime state, session log and sessions",
  sql: `
    CREATE TABLE scene_states (
      scene_id TEXT PRIMARY KEY,
      status TEXT NOT NULL,
      data TEXT NOT NULL,
      saved_at INTEGER NOT NULL
    );
    CREATE TABLE scene_log (
      scene_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      kind TEXT NOT NULL,
      data TEXT NOT NULL,
      PRIMARY KEY (scene_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE scene_sessions (
      scene_id TEXT PRIMARY KEY,
      data TEXT NOT NULL,
      started_at INTEGER NOT NULL
    );
  `,
};

/**
 * The state saved in parts (issue #22): a scene's state row keeps the small rest of the state (`layout`
 * "parts"), each agent's mailbox has its own row in `scene_state_parts` (kind "mailbox", keyed by
 * instance id; the kind leaves room for other parts), and the world's recent changes are rows of
 * `scene_world_changes`, appended and trimmed to what the state keeps. So a step writes only what it
 * changed. `write_mark` names the last write of a store instance (see scene-state-store-parts.ts).
 * Rows written before (`layout` "whole": the whole state in `data`) are read as they are.
 */
const PARTS_TABLES = (engine: "sqlite" | "postgres") => `
    CREATE TABLE scene_state_parts (
      scene_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      key TEXT NOT NULL,
      data TEXT NOT NULL,
      PRIMARY KEY (scene_id, kind, key)
    )${engine === "sqlite" ? " WITHOUT ROWID" : ""};
    CREATE TABLE scene_world_changes (
      scene_id TEXT NOT NULL,
      seq ${engine === "sqlite" ? "INTEGER" : "BIGINT"} NOT NULL,
      data TEXT NOT NULL,
      PRIMARY KEY (scene_id, seq)
    )${engine === "sqlite" ? " WITHOUT ROWID" : ""};
    ALTER TABLE scene_states ADD COLUMN layout TEXT NOT NULL DEFAULT 'whole';
    ALTER TABLE scene_states ADD COLUMN write_mark TEXT;
`;

export const SCENE_PARTS_MIGRATION = {
  version: 8,
  name: "scene state saved in parts",
  sql: PARTS_TABLES("sqlite"),
};

/** The same tables in PostgreSQL, append-only (registered in storage/postgres/migrations.ts). */
export const SCENE_POSTGRES_MIGRATIONS: ReadonlyArray<{ id: string; sql: string }> = [
  {
    id: "scenes-001 scene runtime state, session log and sessions",
    sql: `
      CREATE TABLE scene_states (
        scene_id TEXT PRIMARY KEY,
        status TEXT NOT NULL,
        data TEXT NOT NULL,
        saved_at BIGINT NOT NULL
      );
      CREATE TABLE scene_log (
        scene_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (scene_id, seq)
      );
      CREATE TABLE scene_sessions (
        scene_id TEXT PRIMARY KEY,
        data TEXT NOT NULL,
        started_at BIGINT NOT NULL
      );
    `,
  },
  { id: "scenes-002 scene state saved in parts", sql: PARTS_TABLES("postgres") },
];
