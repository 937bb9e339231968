import type { Database } from "bun:sqlite";
import { SQL } from "bun";
import { SecretRedactor } from "@weft/types";
import { join } from "node:path";
import { openDatabase } from "./database.ts";
import { runMigrations, type Migration } from "./migrations.ts";
import { CORE_MIGRATIONS } from "./core-migrations.ts";
import { createWorkflowRepository, type WorkflowRepository } from "./workflow-repository.ts";
import { createAgentProfileRepository, type AgentProfileRepository } from "./agent-profile-repository.ts";
import { createSceneRepository, type SceneRepository } from "./scene-repository.ts";
import { RunTable, type RunRepository } from "./run-repository.ts";
import { ObservationTable, type ObservationRepository } from "./observation-repository.ts";
import { EventTable, type EventRepository } from "./event-repository.ts";
import { LlmProfileTable, type LlmProfileRepository } from "./llm-profile-repository.ts";
import { MetaTable, type MetaRepository } from "./meta-repository.ts";
import { ConversationTable, type ConversationRepository } from "./conversation-repository.ts";
import { AgentSessionTable, type AgentSessionRepository } from "./agent-session-repository.ts";
import { AgentStepTable, type AgentStepRepository } from "./agent-step-repository.ts";
import { SettingsTableRepository, type SettingsRepository } from "./settings-repository.ts";
import { SqliteGate } from "./sqlite-gate.ts";
import { WalCheckpointer } from "./wal-checkpointer.ts";
import { sqliteBatchWriter } from "./sqlite-batch-writer.ts";
import { describeDatabaseUrl, PostgresConnection, PostgresUnavailableError } from "./postgres-connection.ts";
import type { SqlHandle, Transact } from "./sql-handle.ts";
import type { WriteBatch } from "./write-batch.ts";

export type { SqlHandle } from "./sql-handle.ts";

export const DATABASE_FILE = "weft.sqlite";

export type { WriteBatch } from "./write-batch.ts";

/** Every repository of the server, and the one cross-repository write it needs. */
export interface Storage {
  readonly workflows: WorkflowRepository;
  readonly agents: AgentProfileRepository;
  readonly scenes: SceneRepository;
  readonly runs: RunRepository;
  readonly observations: ObservationRepository;
  readonly events: EventRepository;
  readonly llmProfiles: LlmProfileRepository;
  readonly meta: MetaRepository;
  readonly conversations: ConversationRepository;
  readonly agentSessions: AgentSessionRepository;
  readonly agentSteps: AgentStepRepository;
  readonly settings: SettingsRepository;
  /** Stores events, observations and run status changes in one transaction. */
  writeBatch(batch: WriteBatch): Promise<void>;
  /**
   * Runs `work` in one transaction: all of it is stored, or none (it rolls back when `work` throws).
   * Every repository call awaited inside it, and every statement on `sql` (SQLite: `db`; PostgreSQL:
   * `current()`), joins it; a nested call becomes a savepoint. SQLite: BEGIN IMMEDIATE, one transaction
   * at a time, other callers' storage calls wait until it ends — so the body must only await storage
   * calls (awaiting anything that itself waits for storage outside the body never ends).
   */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /** The connection, for modules with tables of their own (Builder, scenes, accounts, credentials). */
  readonly sql: SqlHandle;
  /**
   * What runtime records (runs, observations, events, conversations, agent steps and sessions) pass
   * before they are written: every stored secret replaced. User documents are stored as given.
   */
  readonly redactor: SecretRedactor;
  close(): Promise<void>;
}

/** What differs between the engines once the repositories are built: transactions and closing. */
interface EngineParts {
  sql: SqlHandle;
  /** SQLite's hand-written flush (sqlite-batch-writer.ts); PostgreSQL writes through the repositories. */
  writeBatch?: (batch: WriteBatch) => Promise<void>;
  transaction: Transact;
  inTransaction(): boolean;
  close(): Promise<void>;
}

/** The storage on either engine: every repository written once, over the engine's connection. */
class WeftStorage implements Storage {
  readonly workflows: WorkflowRepository;
  readonly agents: AgentProfileRepository;
  readonly scenes: SceneRepository;
  readonly runs: RunRepository;
  readonly observations: ObservationRepository;
  readonly events: EventRepository;
  readonly llmProfiles: LlmProfileRepository;
  readonly meta: MetaRepository;
  readonly conversations: ConversationRepository;
  readonly agentSessions: AgentSessionRepository;
  readonly agentSteps: AgentStepRepository;
  readonly settings: SettingsRepository;
  readonly sql: SqlHandle;
  readonly transaction: Transact;

  constructor(
    private readonly engine: EngineParts,
    readonly redactor: SecretRedactor,
  ) {
    const { sql, transaction } = engine;
    this.sql = sql;
    this.transaction = transaction;
    this.workflows = createWorkflowRepository(sql, () => engine.inTransaction());
    this.agents = createAgentProfileRepository(sql);
    this.scenes = createSceneRepository(sql);
    this.runs = new RunTable(sql, redactor);
    this.observations = new ObservationTable(sql, redactor, transaction);
    this.events = new EventTable(sql, transaction);
    this.llmProfiles = new LlmProfileTable(sql, transaction);
    this.meta = new MetaTable(sql);
    this.conversations = new ConversationTable(sql, redactor, transaction);
    this.agentSessions = new AgentSessionTable(sql, redactor);
    this.agentSteps = new AgentStepTable(sql, redactor);
    this.settings = new SettingsTableRepository(sql);
  }

  async writeBatch(batch: WriteBatch): Promise<void> {
    if (this.engine.writeBatch) return await this.engine.writeBatch(batch);
    await this.transaction(async () => {
      for (const run of batch.newRuns) await this.runs.create(run.record, run.workflow);
      await this.events.append(batch.events);
      await this.observations.upsert(batch.observations);
      for (const final of batch.finalObservations) await this.observations.replaceForRun(final.runId, final.observations);
      for (const update of batch.runUpdates) await this.runs.update(update);
    });
  }

  async close(): Promise<void> {
    await this.workflows.close();
    await this.engine.close();
  }
}

function sqliteParts(db: Database, checkpointer: WalCheckpointer, redactor: SecretRedactor): EngineParts {
  const gate = new SqliteGate(db);
  checkpointer.attach(db, gate);
  // Prepared on first use: the tables exist once the migrations ran.
  let writeAll: ((batch: WriteBatch) => void) | undefined;
  return {
    writeBatch: async (batch) => void (await gate.run(() => (writeAll ??= sqliteBatchWriter(db, redactor))(batch))),
    sql: { engine: "sqlite", db, gate: (work) => gate.run(work) },
    transaction: (work) => gate.transaction(work),
    inTransaction: () => db.inTransaction,
    async close() {
      await checkpointer.close();
      db.close();
    },
  };
}

/**
 * Opens (creating if needed) `<dataDir>/weft.sqlite` and migrates it with `migrations` (the core
 * tables only by default; the server gives every module's, from ../schema.ts).
 */
export async function openSqliteStorage(dataDir: string, redactor = new SecretRedactor(), migrations: readonly Migration[] = CORE_MIGRATIONS): Promise<Storage> {
  const file = join(dataDir, DATABASE_FILE);
  const db = openDatabase(file);
  const parts = sqliteParts(db, new WalCheckpointer(file), redactor);
  try {
    await runMigrations(parts.sql, migrations);
  } catch (error) {
    await parts.close();
    throw error;
  }
  return new WeftStorage(parts, redactor);
}

export interface PostgresStorageOptions {
  /** Connections in this process's pool. Default 10. */
  maxConnections?: number;
}

/** Connects to `url`, brings the schema up to date (under an advisory lock, so processes starting together do not race) and opens every repository. */
export async function openPostgresStorage(url: string, redactor = new SecretRedactor(), migrations: readonly Migration[] = CORE_MIGRATIONS, options: PostgresStorageOptions = {}): Promise<Storage> {
  const password = URL.canParse(url) ? decodeURIComponent(new URL(url).password) : "";
  if (password) redactor.set("database-url", "database password", [password]);
  const pool = new SQL(url, { max: options.maxConnections ?? 10, idleTimeout: 30, connectionTimeout: 10 });
  try {
    const connection = new PostgresConnection(pool);
    await runMigrations(connection, migrations);
    const storage = new WeftStorage(
      { sql: connection, transaction: (work) => connection.transaction(work), inTransaction: () => connection.inTransaction(), close: () => pool.close({ timeout: 5 }) },
      redactor,
    );
    await storage.workflows.start();
    return storage;
  } catch (error) {
    await pool.close({ timeout: 1 }).catch(() => undefined);
    if (error instanceof Error && "code" in error && error.code === "SCHEMA_TOO_NEW") throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new PostgresUnavailableError(`Could not open the PostgreSQL storage at ${describeDatabaseUrl(url)}: ${redactor.text(detail.replaceAll(url, describeDatabaseUrl(url)))}`);
  }
}

export interface StorageOptions {
  /** Where the SQLite file lives (and the server's other files). */
  dataDir: string;
  /** `postgres://…` (WEFT_DATABASE_URL) selects PostgreSQL; unset, SQLite in `<dataDir>/weft.sqlite`. */
  databaseUrl?: string;
  /** PostgreSQL connections in this process's pool (WEFT_DB_POOL_SIZE); default 10. Not used by SQLite. */
  poolSize?: number;
  redactor?: SecretRedactor;
  /** Every module's schema steps, core first (the composition's list, ../schema.ts): storage imports no module. */
  migrations: readonly Migration[];
}

/** Opens the storage the options select, migrated to the latest schema. */
export async function openStorage(options: StorageOptions): Promise<Storage> {
  if (options.databaseUrl) {
    return await openPostgresStorage(options.databaseUrl, options.redactor, options.migrations, options.poolSize !== undefined ? { maxConnections: options.poolSize } : {});
  }
  return await openSqliteStorage(options.dataDir, options.redactor, options.migrations);
}
