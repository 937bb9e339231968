import type { Database } from "bun:sqlite";
import { SecretRedactor, type Observation, type Workflow } from "@weft/types";
import { join } from "node:path";
import { openDatabase } from "./database.ts";
import { runMigrations } from "./migrations.ts";
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
   * Runs `work` in one SQLite transaction (BEGIN IMMEDIATE; nested calls become savepoints): all of
   * it is stored, or none. Only synchronous writes (the repositories' `…Sync` methods, statements on `db`) belong in it.
   */
  transaction<T>(work: () => T): T;
  /** The connection, for modules with tables of their own (the Builder): their writes join `transaction`. */
  readonly db: Database;
  /**
   * What runtime records (runs, observations, events, conversations, agent steps and sessions) pass
   * before they are written: every stored secret replaced. User documents are stored as given.
   */
  readonly redactor: SecretRedactor;
  close(): void;
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
  private readonly writeAll: (batch: WriteBatch) => void;

  constructor(
    readonly db: Database,
    readonly redactor: SecretRedactor,
  ) {
    this.workflows = sqliteWorkflowRepository(db);
    this.agents = sqliteAgentProfileRepository(db);
    this.scenes = sqliteSceneRepository(db);
    this.runs = new SqliteRunRepository(db, redactor);
    this.observations = new SqliteObservationRepository(db, redactor);
    this.events = new SqliteEventRepository(db);
    this.llmProfiles = new SqliteLlmProfileRepository(db);
    this.meta = new SqliteMetaRepository(db);
    this.conversations = new SqliteConversationRepository(db, redactor);
    this.agentSessions = new SqliteAgentSessionRepository(db, redactor);
    this.agentSteps = new SqliteAgentStepRepository(db, redactor);
    this.settings = new SqliteSettingsRepository(db);
    this.writeAll = db.transaction((batch: WriteBatch) => {
      for (const run of batch.newRuns) this.runs.createSync(run.record, run.workflow);
      this.events.appendSync(batch.events);
      this.observations.upsertSync(batch.observations);
      for (const final of batch.finalObservations) this.observations.replaceForRunSync(final.runId, final.observations);
      for (const update of batch.runUpdates) this.runs.updateSync(update);
    });
  }

  async writeBatch(batch: WriteBatch): Promise<void> {
    this.writeAll(batch);
  }

  transaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  close(): void {
    this.db.close();
  }
}

/** Opens (creating if needed) `<dataDir>/weft.sqlite` and migrates it to the latest schema. */
export function openSqliteStorage(dataDir: string, redactor = new SecretRedactor()): Storage {
  const db = openDatabase(join(dataDir, DATABASE_FILE));
  runMigrations(db);
  return new SqliteStorage(db, redactor);
}
