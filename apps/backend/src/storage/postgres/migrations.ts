import type { SQL } from "bun";
import { BUILDER_POSTGRES_MIGRATIONS } from "../../builder/storage/builder-migration.ts";
import { CREDENTIALS_POSTGRES_MIGRATIONS } from "../credential-repository.ts";
import { SCENE_POSTGRES_MIGRATIONS } from "../../scenes/scene-migration.ts";
import { PAYLOAD_POSTGRES_MIGRATIONS } from "../../events/payload-store.ts";
import { ACCOUNTS_POSTGRES_MIGRATIONS } from "../../accounts/postgres-account-repository.ts";
import { AGENT_CHANGES_POSTGRES_MIGRATIONS } from "../../agents/agent-change-log.ts";

/** One step of a PostgreSQL schema: released steps are never edited, a change is a new step. */
export interface PostgresMigration {
  /** Unique and stable, recorded in `schema_migrations` (e.g. "core-001 initial schema"). */
  id: string;
  sql: string;
}

/**
 * The core tables, as on SQLite (storage/migrations.ts) but with PostgreSQL types: epoch-millisecond
 * times are BIGINT, JSON is kept as TEXT exactly as written (as on SQLite; JSONB would refuse a
 * \u0000 in a run's output and reorder keys), runs get an insertion counter for the list's order.
 */
export const CORE_POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    id: "core-001 initial schema",
    sql: `
      CREATE TABLE workflows (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        revision INTEGER NOT NULL,
        data TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        description TEXT NOT NULL,
        tags TEXT NOT NULL,
        node_count INTEGER NOT NULL,
        is_skill BOOLEAN NOT NULL,
        interface TEXT NOT NULL,
        calls TEXT NOT NULL
      );
      CREATE INDEX workflows_by_name ON workflows (lower(name) COLLATE "C", id COLLATE "C");
      CREATE TABLE agent_profiles (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        revision INTEGER NOT NULL,
        data TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE TABLE scenes (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        revision INTEGER NOT NULL,
        data TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        ord BIGINT GENERATED ALWAYS AS IDENTITY,
        workflow_id TEXT NOT NULL,
        workflow_revision INTEGER NOT NULL,
        status TEXT NOT NULL,
        inputs TEXT NOT NULL,
        outputs TEXT NOT NULL,
        error TEXT,
        rerun_from TEXT,
        source_run_id TEXT,
        created_by TEXT,
        workflow TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        started_at BIGINT,
        finished_at BIGINT,
        duration_ms DOUBLE PRECISION
      );
      CREATE INDEX runs_by_workflow ON runs (workflow_id, created_at DESC, ord DESC);
      CREATE INDEX runs_by_created ON runs (created_at DESC, ord DESC);
      CREATE INDEX runs_unfinished ON runs (created_at) WHERE status IN ('queued', 'running');
      CREATE TABLE observations (
        run_id TEXT NOT NULL,
        invocation_id TEXT NOT NULL,
        ord INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, invocation_id)
      );
      CREATE INDEX observations_by_order ON observations (run_id, ord);
      CREATE TABLE events (
        stream_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (stream_id, seq)
      );
      CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        agent_id TEXT,
        data TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX conversations_by_agent ON conversations (agent_id, updated_at DESC);
      CREATE TABLE conversation_messages (
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        message_id TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (conversation_id, seq),
        UNIQUE (conversation_id, message_id)
      );
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
        temperature DOUBLE PRECISION,
        context_window INTEGER,
        pass_back_reasoning BOOLEAN NOT NULL DEFAULT FALSE,
        max_retries INTEGER NOT NULL DEFAULT 2,
        is_default BOOLEAN NOT NULL DEFAULT FALSE,
        health_status TEXT NOT NULL DEFAULT 'unknown',
        last_tested_at BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE TABLE agent_sessions (
        conversation_id TEXT PRIMARY KEY,
        agent_id TEXT NOT NULL,
        data TEXT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE TABLE agent_steps (
        conversation_id TEXT NOT NULL,
        step INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (conversation_id, step)
      );
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        data TEXT NOT NULL,
        updated_at BIGINT NOT NULL
      );
    `,
  },
  {
    id: "core-002 workflow ids announced",
    // Every process keeps the stored workflow ids for the validators' synchronous skill check
    // (workflows.isStored); a NOTIFY on commit tells them of ids other processes added or removed.
    sql: `
      CREATE FUNCTION weft_workflows_announce() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          PERFORM pg_notify('weft_workflows', '-' || OLD.id);
        ELSE
          PERFORM pg_notify('weft_workflows', '+' || NEW.id);
        END IF;
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER workflows_announce AFTER INSERT OR DELETE ON workflows FOR EACH ROW EXECUTE FUNCTION weft_workflows_announce();
    `,
  },
];

/**
 * Other modules' tables (Builder, scenes, accounts, credentials, agent changes), each module's list in its order:
 * a module adds its list here. Ids must not collide (start them with the module's name).
 */
const MODULE_MIGRATIONS: readonly (readonly PostgresMigration[])[] = [
  BUILDER_POSTGRES_MIGRATIONS,
  CREDENTIALS_POSTGRES_MIGRATIONS,
  SCENE_POSTGRES_MIGRATIONS,
  PAYLOAD_POSTGRES_MIGRATIONS,
  ACCOUNTS_POSTGRES_MIGRATIONS,
  AGENT_CHANGES_POSTGRES_MIGRATIONS,
];

export function allPostgresMigrations(): PostgresMigration[] {
  return [...CORE_POSTGRES_MIGRATIONS, ...MODULE_MIGRATIONS.flat()];
}

/** The database has schema steps this Weft does not know: a newer Weft wrote it. */
export class PostgresSchemaTooNewError extends Error {
  readonly code = "SCHEMA_TOO_NEW";
  constructor(unknown: string[]) {
    super(`The database has schema steps this Weft does not know (${unknown.join(", ")}): a newer Weft migrated it. Upgrade Weft or point WEFT_DATABASE_URL at another database.`);
  }
}

/** Arbitrary but fixed: the advisory lock key all Weft processes take while migrating. */
const MIGRATION_LOCK = 0x7765_6674;

/**
 * Applies the migrations not yet recorded in `schema_migrations`, in order, in one transaction
 * under a transaction-level advisory lock: several API and worker processes starting at once wait
 * for each other instead of racing, and a failed step leaves the schema as it was. Answers the
 * ids applied now (empty when the schema was current); `fresh` when none had been applied before.
 */
export async function runPostgresMigrations(sql: SQL, migrations: readonly PostgresMigration[] = allPostgresMigrations()): Promise<{ fresh: boolean; applied: string[] }> {
  return await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`;
    const done = new Set((await tx<{ id: string }[]>`SELECT id FROM schema_migrations`).map((r) => r.id));
    const known = new Set(migrations.map((m) => m.id));
    const unknown = [...done].filter((id) => !known.has(id));
    if (unknown.length > 0) throw new PostgresSchemaTooNewError(unknown.sort());
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.id)) continue;
      await tx.unsafe(migration.sql);
      await tx`INSERT INTO schema_migrations (id, applied_at) VALUES (${migration.id}, ${Date.now()})`;
      applied.push(migration.id);
    }
    return { fresh: done.size === 0, applied };
  });
}
