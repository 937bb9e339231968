import type { Database } from "bun:sqlite";
import { BUILDER_MIGRATION } from "../builder/storage/builder-migration.ts";
import { SCENE_MIGRATION, SCENE_PARTS_MIGRATION } from "../scenes/scene-migration.ts";

interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * The schema, as an append-only list: a released migration is never edited, a change is a new one.
 * Records are kept as JSON in `data` next to the columns that queries filter or sort on.
 */
const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "initial schema",
    sql: `
      CREATE TABLE workflows (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        revision INTEGER NOT NULL,
        data TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE agent_profiles (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        revision INTEGER NOT NULL,
        data TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE scenes (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        revision INTEGER NOT NULL,
        data TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        workflow_id TEXT NOT NULL,
        workflow_revision INTEGER NOT NULL,
        status TEXT NOT NULL,
        inputs TEXT NOT NULL,
        outputs TEXT NOT NULL,
        error TEXT,
        rerun_from TEXT,
        source_run_id TEXT,
        workflow TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        finished_at INTEGER,
        duration_ms REAL
      );
      CREATE INDEX runs_by_workflow ON runs (workflow_id, created_at DESC);
      CREATE INDEX runs_by_created ON runs (created_at DESC);
      CREATE INDEX runs_by_status ON runs (status);
      CREATE TABLE observations (
        run_id TEXT NOT NULL,
        invocation_id TEXT NOT NULL,
        ord INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, invocation_id)
      ) WITHOUT ROWID;
      CREATE INDEX observations_by_order ON observations (run_id, ord);
      CREATE TABLE events (
        stream_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (stream_id, seq)
      ) WITHOUT ROWID;
      CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        agent_id TEXT,
        data TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX conversations_by_agent ON conversations (agent_id, updated_at DESC);
      CREATE TABLE conversation_messages (
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        message_id TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (conversation_id, seq)
      ) WITHOUT ROWID;
      CREATE UNIQUE INDEX conversation_messages_by_id ON conversation_messages (conversation_id, message_id);
      CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
      CREATE TABLE llm_profiles (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        provider TEXT NOT NULL,
        base_url TEXT NOT NULL,
        model TEXT NOT NULL,
        api_key_encrypted TEXT,
        api_key_masked TEXT,
        timeout_ms INTEGER NOT NULL,
        temperature REAL,
        context_window INTEGER,
        pass_back_reasoning INTEGER NOT NULL DEFAULT 0,
        max_retries INTEGER NOT NULL DEFAULT 2,
        is_default INTEGER NOT NULL DEFAULT 0,
        health_status TEXT NOT NULL DEFAULT 'unknown',
        last_tested_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: "agent sessions and step traces",
    sql: `
      CREATE TABLE agent_sessions (
        conversation_id TEXT PRIMARY KEY,
        agent_id TEXT NOT NULL,
        data TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE agent_steps (
        conversation_id TEXT NOT NULL,
        step INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (conversation_id, step)
      ) WITHOUT ROWID;
    `,
  },
  BUILDER_MIGRATION,
  SCENE_MIGRATION,
  {
    version: 5,
    name: "user settings",
    sql: `
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        data TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 6,
    name: "credentials for http.request",
    sql: `
      CREATE TABLE credentials (
        name TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        header TEXT,
        username TEXT,
        description TEXT NOT NULL DEFAULT '',
        secret_encrypted TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 7,
    name: "who started a run; workflow list summaries in their own columns",
    // Summary columns stay NULL for rows written before this migration; the workflow list fills them on first read.
    sql: `
      ALTER TABLE runs ADD COLUMN created_by TEXT;
      ALTER TABLE workflows ADD COLUMN description TEXT;
      ALTER TABLE workflows ADD COLUMN tags TEXT;
      ALTER TABLE workflows ADD COLUMN node_count INTEGER;
      ALTER TABLE workflows ADD COLUMN is_skill INTEGER;
      ALTER TABLE workflows ADD COLUMN interface TEXT;
    `,
  },
  SCENE_PARTS_MIGRATION,
  {
    version: 9,
    name: "conversation messages in a rowid table",
    // WITHOUT ROWID keeps rows in the key's b-tree, where a row past ~1,000 bytes spills onto an overflow page of
    // its own: an agent step's message with its trace (1–1.5 KB) took a 4 KB page for ~500 bytes, half of what
    // the table held was empty space, and each insert wrote that extra page. A rowid table keeps rows up to ~4 KB
    // in place; (conversation_id, seq) stays the primary key, now as an index.
    sql: `
      CREATE TABLE conversation_messages_v9 (
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        message_id TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (conversation_id, seq)
      );
      INSERT INTO conversation_messages_v9 (conversation_id, seq, message_id, data) SELECT conversation_id, seq, message_id, data FROM conversation_messages ORDER BY conversation_id, seq;
      DROP TABLE conversation_messages;
      ALTER TABLE conversation_messages_v9 RENAME TO conversation_messages;
      CREATE UNIQUE INDEX conversation_messages_by_id ON conversation_messages (conversation_id, message_id);
    `,
  },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

export class SchemaTooNewError extends Error {
  readonly code = "SCHEMA_TOO_NEW";
  constructor(found: number) {
    super(`The database has schema version ${found}, newer than this Weft (${LATEST_SCHEMA_VERSION}). Upgrade Weft or point WEFT_DATA_DIR at another folder.`);
  }
}

/**
 * Brings the database to the latest schema, each migration in its own transaction, and says
 * whether the database was new (the caller loads the example content only then).
 */
export function runMigrations(db: Database): { fresh: boolean; from: number; to: number } {
  const current = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  if (current > LATEST_SCHEMA_VERSION) throw new SchemaTooNewError(current);
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.exec(`PRAGMA user_version = ${migration.version}`);
    })();
  }
  return { fresh: current === 0, from: current, to: LATEST_SCHEMA_VERSION };
}
