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
];
