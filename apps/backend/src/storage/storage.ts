import type { Database } from "bun:sqlite";
import { SecretRedactor, type Observation, type Workflow } from "@weft/types";
import { join } from "node:path";
import { openDatabase } from "./database.ts";
import { runMigrations } from "./sqlite-schema.ts";
import { sqliteWorkflowRepository, type WorkflowRepository } from "./workflow-repository.ts";
import { sqliteAgentProfileRepository, type AgentProfileRepository } from "./agent-profile-repository.ts";
import { sqliteSceneRepository, type SceneRepository } from "./scene-repository.ts";
import { SqliteRunRepository, type RunRecord, type RunRepository, type RunUpdate } from "./run-repository.ts";
import { SqliteObservationRepository, type ObservationRepository, type OrderedObservation } from "./observation-repository.ts";
import { SqliteEventRepository, type EventRepository, type StoredEvent } from "./event-repository.ts";
import { SqliteLlmProfileRepository, type LlmProfileRepository } from "./llm-profile-repository.ts";
import { SqliteMetaRepository, type MetaRepository } from "./meta-repository.ts";
import { SqliteConversationRepository, type ConversationRepository } from "./conversation-repository.ts";
import { SqliteAgentSessionRepository, type AgentSessionRepository } from "./agent-session-repository.ts";
import { SqliteAgentStepRepository, type AgentStepRepository } from "./agent-step-repository.ts";
import { SqliteSettingsRepository, type SettingsRepository } from "./settings-repository.ts";
import { SqliteGate } from "./sqlite-gate.ts";
import { WalCheckpointer } from "./wal-checkpointer.ts";
import { openPostgresStorage } from "./postgres/postgres-storage.ts";
import type { SqlHandle, SqliteHandle } from "./sql-handle.ts";

export type { SqlHandle } from "./sql-handle.ts";

export const DATABASE_FILE = "weft.sqlite";

/** What one flush of the run writer stores, all or nothing. */
export interface WriteBatch {
  /** Runs started outside the API (an agent's deliberations and actions), stored with their first events. */
  newRuns: { record: RunRecord; workflow: Workflow | undefined }[];
  events: StoredEvent[];
  observations: OrderedObservation[];
  /** A finished run's final observations, replacing what was stored for it while it ran. */
  finalObservations: { runId: string; observations: Observation[] }[];
  runUpdates: RunUpdate[];
}

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

/**
 * Wraps a SQLite repository so that each of its calls waits for another caller's open transaction
 * (see SqliteGate). Members named `…Sync` and the listed synchronous ones are passed through as they are.
 */
function gated<T extends object>(repository: T, gate: SqliteGate, synchronous: readonly string[] = []): T {
  return new Proxy(repository, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== "function" || typeof key !== "string" || key.endsWith("Sync") || synchronous.includes(key)) return value;
      const method = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => gate.run(() => method.apply(target, args));
    },
  });
}

class SqliteStorage implements Storage {
  readonly workflows: WorkflowRepository;
  readonly agents: AgentProfileRepository;
  readonly scenes: SceneRepository;
  readonly runs: SqliteRunRepository;
  readonly observations: SqliteObservationRepository;
  readonly events: SqliteEventRepository;
  readonly llmProfiles: LlmProfileRepository;
  readonly meta: MetaRepository;
  readonly conversations: ConversationRepository;
  readonly agentSessions: AgentSessionRepository;
  readonly agentSteps: AgentStepRepository;
  readonly settings: SettingsRepository;
  readonly sql: SqliteHandle;
  private readonly gate: SqliteGate;
  private readonly writeAll: (batch: WriteBatch) => void;

  constructor(
    private readonly db: Database,
    readonly redactor: SecretRedactor,
    private readonly checkpointer: WalCheckpointer,
  ) {
    const gate = new SqliteGate(db);
    this.gate = gate;
    checkpointer.attach(db, gate);
    this.sql = { engine: "sqlite", db, gate: (work) => gate.run(work) };
    this.workflows = gated(sqliteWorkflowRepository(db), gate, ["isStored"]);
    this.agents = gated(sqliteAgentProfileRepository(db), gate);
    this.scenes = gated(sqliteSceneRepository(db), gate);
    this.runs = gated(new SqliteRunRepository(db, redactor), gate);
    this.observations = gated(new SqliteObservationRepository(db, redactor), gate);
    this.events = gated(new SqliteEventRepository(db), gate);
    this.llmProfiles = gated(new SqliteLlmProfileRepository(db), gate);
    this.meta = gated(new SqliteMetaRepository(db), gate);
    this.conversations = gated(new SqliteConversationRepository(db, redactor), gate);
    this.agentSessions = gated(new SqliteAgentSessionRepository(db, redactor), gate);
    this.agentSteps = gated(new SqliteAgentStepRepository(db, redactor), gate);
    this.settings = gated(new SqliteSettingsRepository(db), gate);
    this.writeAll = db.transaction((batch: WriteBatch) => {
      for (const run of batch.newRuns) this.runs.createSync(run.record, run.workflow);
      this.events.appendSync(batch.events);
      this.observations.upsertSync(batch.observations);
      for (const final of batch.finalObservations) this.observations.replaceForRunSync(final.runId, final.observations);
      for (const update of batch.runUpdates) this.runs.updateSync(update);
    });
  }

  async writeBatch(batch: WriteBatch): Promise<void> {
    await this.gate.run(() => this.writeAll(batch));
  }

  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.gate.transaction(work);
  }

  async close(): Promise<void> {
    await this.checkpointer.close();
    this.db.close();
  }
}

/** Opens (creating if needed) `<dataDir>/weft.sqlite` and migrates it to the latest schema. */
export function openSqliteStorage(dataDir: string, redactor = new SecretRedactor()): Storage {
  const file = join(dataDir, DATABASE_FILE);
  const db = openDatabase(file);
  runMigrations(db);
  return new SqliteStorage(db, redactor, new WalCheckpointer(file));
}

export interface StorageOptions {
  /** Where the SQLite file lives (and the server's other files). */
  dataDir: string;
  /** `postgres://…` (WEFT_DATABASE_URL) selects PostgreSQL; unset, SQLite in `<dataDir>/weft.sqlite`. */
  databaseUrl?: string;
  /** PostgreSQL connections in this process's pool (WEFT_DB_POOL_SIZE); default 10. Not used by SQLite. */
  poolSize?: number;
  redactor?: SecretRedactor;
}

/** Opens the storage the options select, migrated to the latest schema. */
export async function openStorage(options: StorageOptions): Promise<Storage> {
  if (options.databaseUrl) return await openPostgresStorage(options.databaseUrl, options.redactor, options.poolSize !== undefined ? { maxConnections: options.poolSize } : {});
  return openSqliteStorage(options.dataDir, options.redactor);
}
