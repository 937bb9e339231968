import { ddlStep } from "./ddl.ts";
import type { Migration } from "./migrations.ts";

export const CORE_MIGRATIONS: readonly Migration[] = [
  /**
   * The squash of the core schema e5dc891 had (SQLite steps 1, 2, 5, 7 and 9; PostgreSQL's core-001),
   * under PostgreSQL's ids. Column order, types, indexes and keys are each engine's as they were
   * (schema-equality.test.ts checks them against fixtures dumped from e5dc891).
   */
  ddlStep("core-001 initial schema", ({ pg, time, flag, no, real, withoutRowid }) => {
    const documentTable = (name: string, more = "") =>
      `CREATE TABLE ${name} (id text PRIMARY KEY, name text NOT NULL, revision integer NOT NULL, data text NOT NULL,
      created_at ${time} NOT NULL, updated_at ${time} NOT NULL${more})`;
    // SQLite added the summary columns later (schema 7), nullable, filled on first read; PostgreSQL had them from the start.
    const summary = pg ? " NOT NULL" : "";
    // PostgreSQL's `ord` orders runs of the same `created_at` as inserted (SQLite's indexes end with the rowid).
    const tieBreak = pg ? ", ord DESC" : "";
    return [
      documentTable(
        "workflows",
        `, description text${summary}, tags text${summary}, node_count integer${summary}, is_skill ${flag}${summary}, interface text${summary}${pg ? ", calls text NOT NULL" : ""}`,
      ),
      documentTable("agent_profiles"),
      documentTable("scenes"),
      ...(pg ? [`CREATE INDEX workflows_by_name ON workflows (lower(name) COLLATE "C", id COLLATE "C")`] : []),
      `CREATE TABLE runs (id text PRIMARY KEY${pg ? ", ord bigint GENERATED ALWAYS AS IDENTITY" : ""}, workflow_id text NOT NULL, workflow_revision integer NOT NULL,
      status text NOT NULL, inputs text NOT NULL, outputs text NOT NULL, error text, rerun_from text, source_run_id text${pg ? ", created_by text" : ""},
      workflow text NOT NULL, created_at ${time} NOT NULL, started_at ${time}, finished_at ${time}, duration_ms ${real}${pg ? "" : ", created_by text"})`,
      `CREATE INDEX runs_by_workflow ON runs (workflow_id, created_at DESC${tieBreak})`,
      `CREATE INDEX runs_by_created ON runs (created_at DESC${tieBreak})`,
      pg ? `CREATE INDEX runs_unfinished ON runs (created_at) WHERE status IN ('queued', 'running')` : `CREATE INDEX runs_by_status ON runs (status)`,
      `CREATE TABLE observations (run_id text NOT NULL, invocation_id text NOT NULL, ord integer NOT NULL, data text NOT NULL,
      PRIMARY KEY (run_id, invocation_id))${withoutRowid}`,
      `CREATE INDEX observations_by_order ON observations (run_id, ord)`,
      `CREATE TABLE events (stream_id text NOT NULL, seq integer NOT NULL, type text NOT NULL, data text NOT NULL, PRIMARY KEY (stream_id, seq))${withoutRowid}`,
      `CREATE TABLE conversations (id text PRIMARY KEY, agent_id text, data text NOT NULL, created_at ${time} NOT NULL, updated_at ${time} NOT NULL)`,
      `CREATE INDEX conversations_by_agent ON conversations (agent_id, updated_at DESC)`,
      // A rowid table on SQLite (step 9): messages of 1–1.5 KB spilled onto overflow pages in a WITHOUT ROWID one.
      `CREATE TABLE conversation_messages (conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE, seq integer NOT NULL,
      message_id text NOT NULL, data text NOT NULL, PRIMARY KEY (conversation_id, seq)${pg ? ", UNIQUE (conversation_id, message_id)" : ""})`,
      ...(pg ? [] : [`CREATE UNIQUE INDEX conversation_messages_by_id ON conversation_messages (conversation_id, message_id)`]),
      `CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL)`,
      `CREATE TABLE llm_profiles (id text PRIMARY KEY, name text NOT NULL, provider text NOT NULL, base_url text NOT NULL, model text NOT NULL,
      api_key_encrypted text, api_key_masked text, timeout_ms integer NOT NULL, temperature ${real}, context_window integer,
      pass_back_reasoning ${flag} NOT NULL DEFAULT ${no}, max_retries integer NOT NULL DEFAULT 2, is_default ${flag} NOT NULL DEFAULT ${no},
      health_status text NOT NULL DEFAULT 'unknown', last_tested_at ${time}, created_at ${time} NOT NULL, updated_at ${time} NOT NULL)`,
      `CREATE TABLE agent_sessions (conversation_id text PRIMARY KEY, agent_id text NOT NULL, data text NOT NULL, updated_at ${time} NOT NULL)`,
      `CREATE TABLE agent_steps (conversation_id text NOT NULL, step integer NOT NULL, data text NOT NULL, PRIMARY KEY (conversation_id, step))${withoutRowid}`,
      `CREATE TABLE settings (key text PRIMARY KEY, data text NOT NULL, updated_at ${time} NOT NULL)`,
    ];
  }),
  // Every PostgreSQL process keeps the stored workflow ids for the validators' synchronous skill check
  // (workflows.isStored); a NOTIFY on commit tells them of ids other processes added or removed. SQLite answers from its file.
  ddlStep("core-002 workflow ids announced", ({ pg }) =>
    pg
      ? [
          `CREATE FUNCTION weft_workflows_announce() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF TG_OP = 'DELETE' THEN
                PERFORM pg_notify('weft_workflows', '-' || OLD.id);
              ELSE
                PERFORM pg_notify('weft_workflows', '+' || NEW.id);
              END IF;
              RETURN NULL;
            END
            $$`,
          `CREATE TRIGGER workflows_announce AFTER INSERT OR DELETE ON workflows FOR EACH ROW EXECUTE FUNCTION weft_workflows_announce()`,
        ]
      : [],
  ),
  ddlStep("credentials-001 credentials for http.request", ({ time }) => [
    `CREATE TABLE credentials (name text PRIMARY KEY, kind text NOT NULL, header text, username text, description text NOT NULL DEFAULT '',
        secret_encrypted text NOT NULL, created_at ${time} NOT NULL, updated_at ${time} NOT NULL)`,
  ]),
  // Rows stored before have no hosts (refused until an owner binds them) and owners only as roles.
  ddlStep("credentials-002 hosts and roles a credential is bound to", () => [
    `ALTER TABLE credentials ADD COLUMN hosts text NOT NULL DEFAULT '[]'`,
    `ALTER TABLE credentials ADD COLUMN roles text NOT NULL DEFAULT '["owner"]'`,
  ]),
];
