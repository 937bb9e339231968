import { sql, type CreateTableBuilder, type Kysely } from "kysely";
import type { Migration } from "./migrations.ts";
import type { SqlHandle } from "./sql-handle.ts";

type Engine = SqlHandle["engine"];
type Table = CreateTableBuilder<string, never>;

/**
 * Types that differ: epoch-millisecond times are BIGINT on PostgreSQL (INTEGER is 64-bit on SQLite),
 * flags BOOLEAN there; JSON is TEXT on both, exactly as written (JSONB would refuse a \u0000 in a
 * run's output and reorder keys).
 */
function types(engine: Engine) {
  return engine === "postgres" ? ({ time: "bigint", flag: "boolean", real: "double precision" } as const) : ({ time: "integer", flag: "integer", real: "real" } as const);
}

/** SQLite keeps small rows of a composite key in the key's b-tree. */
function withoutRowid(table: Table, engine: Engine): Table {
  return engine === "sqlite" ? table.modifyEnd(sql`without rowid`) : table;
}

function documentTable(db: Kysely<unknown>, engine: Engine, name: string): Table {
  const t = types(engine);
  return db.schema
    .createTable(name)
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("revision", "integer", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("created_at", t.time, (c) => c.notNull())
    .addColumn("updated_at", t.time, (c) => c.notNull());
}

/**
 * The squash of the core schema e5dc891 had (SQLite steps 1, 2, 5, 7 and 9; PostgreSQL's core-001),
 * under PostgreSQL's ids. Column order, types, indexes and keys are each engine's as they were
 * (schema-equality.test.ts checks them against fixtures dumped from e5dc891).
 */
async function initialSchema(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const t = types(engine);
  const pg = engine === "postgres";
  // SQLite added the summary columns later (schema 7), nullable, filled on first read; PostgreSQL had them from the start.
  let workflows = documentTable(db, engine, "workflows");
  for (const column of ["description", "tags", "node_count", "is_skill", "interface"] as const) {
    const type = column === "node_count" ? "integer" : column === "is_skill" ? t.flag : "text";
    workflows = workflows.addColumn(column, type, (c) => (pg ? c.notNull() : c));
  }
  if (pg) workflows = workflows.addColumn("calls", "text", (c) => c.notNull());
  await workflows.execute();
  if (pg) await sql`CREATE INDEX workflows_by_name ON workflows (lower(name) COLLATE "C", id COLLATE "C")`.execute(db);
  await documentTable(db, engine, "agent_profiles").execute();
  await documentTable(db, engine, "scenes").execute();

  let runs = db.schema.createTable("runs").addColumn("id", "text", (c) => c.primaryKey());
  if (pg) runs = runs.addColumn("ord", "bigint", (c) => c.generatedAlwaysAsIdentity());
  runs = runs
    .addColumn("workflow_id", "text", (c) => c.notNull())
    .addColumn("workflow_revision", "integer", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("inputs", "text", (c) => c.notNull())
    .addColumn("outputs", "text", (c) => c.notNull())
    .addColumn("error", "text")
    .addColumn("rerun_from", "text")
    .addColumn("source_run_id", "text");
  if (pg) runs = runs.addColumn("created_by", "text");
  runs = runs
    .addColumn("workflow", "text", (c) => c.notNull())
    .addColumn("created_at", t.time, (c) => c.notNull())
    .addColumn("started_at", t.time)
    .addColumn("finished_at", t.time)
    .addColumn("duration_ms", t.real);
  if (!pg) runs = runs.addColumn("created_by", "text");
  await runs.execute();
  const tieBreak = pg ? ["ord desc"] : [];
  await db.schema
    .createIndex("runs_by_workflow")
    .on("runs")
    .columns(["workflow_id", "created_at desc", ...tieBreak])
    .execute();
  await db.schema
    .createIndex("runs_by_created")
    .on("runs")
    .columns(["created_at desc", ...tieBreak])
    .execute();
  if (pg) await sql`CREATE INDEX runs_unfinished ON runs (created_at) WHERE status IN ('queued', 'running')`.execute(db);
  else await db.schema.createIndex("runs_by_status").on("runs").column("status").execute();

  await withoutRowid(
    db.schema
      .createTable("observations")
      .addColumn("run_id", "text", (c) => c.notNull())
      .addColumn("invocation_id", "text", (c) => c.notNull())
      .addColumn("ord", "integer", (c) => c.notNull())
      .addColumn("data", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("observations_pkey", ["run_id", "invocation_id"]),
    engine,
  ).execute();
  await db.schema.createIndex("observations_by_order").on("observations").columns(["run_id", "ord"]).execute();
  await withoutRowid(
    db.schema
      .createTable("events")
      .addColumn("stream_id", "text", (c) => c.notNull())
      .addColumn("seq", "integer", (c) => c.notNull())
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("data", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("events_pkey", ["stream_id", "seq"]),
    engine,
  ).execute();

  await db.schema
    .createTable("conversations")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("agent_id", "text")
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("created_at", t.time, (c) => c.notNull())
    .addColumn("updated_at", t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("conversations_by_agent").on("conversations").columns(["agent_id", "updated_at desc"]).execute();
  // A rowid table on SQLite (step 9): messages of 1–1.5 KB spilled onto overflow pages in a WITHOUT ROWID one.
  let messages = db.schema
    .createTable("conversation_messages")
    .addColumn("conversation_id", "text", (c) => c.notNull().references("conversations.id").onDelete("cascade"))
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("message_id", "text", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("conversation_messages_pkey", ["conversation_id", "seq"]);
  if (pg) messages = messages.addUniqueConstraint("conversation_messages_conversation_id_message_id_key", ["conversation_id", "message_id"]);
  await messages.execute();
  if (!pg) await db.schema.createIndex("conversation_messages_by_id").unique().on("conversation_messages").columns(["conversation_id", "message_id"]).execute();

  await db.schema
    .createTable("meta")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("llm_profiles")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("provider", "text", (c) => c.notNull())
    .addColumn("base_url", "text", (c) => c.notNull())
    .addColumn("model", "text", (c) => c.notNull())
    .addColumn("api_key_encrypted", "text")
    .addColumn("api_key_masked", "text")
    .addColumn("timeout_ms", "integer", (c) => c.notNull())
    .addColumn("temperature", t.real)
    .addColumn("context_window", "integer")
    .addColumn("pass_back_reasoning", t.flag, (c) => c.notNull().defaultTo(pg ? sql`false` : 0))
    .addColumn("max_retries", "integer", (c) => c.notNull().defaultTo(2))
    .addColumn("is_default", t.flag, (c) => c.notNull().defaultTo(pg ? sql`false` : 0))
    .addColumn("health_status", "text", (c) => c.notNull().defaultTo("unknown"))
    .addColumn("last_tested_at", t.time)
    .addColumn("created_at", t.time, (c) => c.notNull())
    .addColumn("updated_at", t.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("agent_sessions")
    .addColumn("conversation_id", "text", (c) => c.primaryKey())
    .addColumn("agent_id", "text", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("updated_at", t.time, (c) => c.notNull())
    .execute();
  await withoutRowid(
    db.schema
      .createTable("agent_steps")
      .addColumn("conversation_id", "text", (c) => c.notNull())
      .addColumn("step", "integer", (c) => c.notNull())
      .addColumn("data", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("agent_steps_pkey", ["conversation_id", "step"]),
    engine,
  ).execute();
  await db.schema
    .createTable("settings")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("updated_at", t.time, (c) => c.notNull())
    .execute();
}

export const CORE_MIGRATIONS: readonly Migration[] = [
  { id: "core-001 initial schema", up: initialSchema },
  {
    id: "core-002 workflow ids announced",
    // Every PostgreSQL process keeps the stored workflow ids for the validators' synchronous skill check
    // (workflows.isStored); a NOTIFY on commit tells them of ids other processes added or removed. SQLite answers from its file.
    async up(db, engine) {
      switch (engine) {
        case "sqlite":
          return;
        case "postgres":
          await sql`CREATE FUNCTION weft_workflows_announce() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF TG_OP = 'DELETE' THEN
                PERFORM pg_notify('weft_workflows', '-' || OLD.id);
              ELSE
                PERFORM pg_notify('weft_workflows', '+' || NEW.id);
              END IF;
              RETURN NULL;
            END
            $$`.execute(db);
          await sql`CREATE TRIGGER workflows_announce AFTER INSERT OR DELETE ON workflows FOR EACH ROW EXECUTE FUNCTION weft_workflows_announce()`.execute(db);
      }
    },
  },
  {
    id: "credentials-001 credentials for http.request",
    async up(db, engine) {
      const t = types(engine);
      await db.schema
        .createTable("credentials")
        .addColumn("name", "text", (c) => c.primaryKey())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("header", "text")
        .addColumn("username", "text")
        .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
        .addColumn("secret_encrypted", "text", (c) => c.notNull())
        .addColumn("created_at", t.time, (c) => c.notNull())
        .addColumn("updated_at", t.time, (c) => c.notNull())
        .execute();
    },
  },
  {
    id: "credentials-002 hosts and roles a credential is bound to",
    // Rows stored before have no hosts (refused until an owner binds them) and owners only as roles.
    async up(db) {
      await db.schema
        .alterTable("credentials")
        .addColumn("hosts", "text", (c) => c.notNull().defaultTo("[]"))
        .execute();
      await db.schema
        .alterTable("credentials")
        .addColumn("roles", "text", (c) => c.notNull().defaultTo('["owner"]'))
        .execute();
    },
  },
];
