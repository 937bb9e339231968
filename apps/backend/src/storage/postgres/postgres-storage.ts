import { SQL } from "bun";
import { SecretRedactor } from "@weft/types";
import type { Storage, WriteBatch } from "../storage.ts";
import type { AgentProfileRepository } from "../agent-profile-repository.ts";
import type { SceneRepository } from "../scene-repository.ts";
import { PostgresConnection } from "./connection.ts";
import { PostgresSchemaTooNewError, runPostgresMigrations } from "./migrations.ts";
import { PostgresWorkflowRepository } from "./workflow-repository.ts";
import { postgresAgentProfileRepository } from "./agent-profile-repository.ts";
import { postgresSceneRepository } from "./scene-repository.ts";
import { PostgresRunRepository } from "./run-repository.ts";
import { PostgresObservationRepository } from "./observation-repository.ts";
import { PostgresEventRepository } from "./event-repository.ts";
import { PostgresLlmProfileRepository } from "./llm-profile-repository.ts";
import { PostgresMetaRepository } from "./meta-repository.ts";
import { PostgresConversationRepository } from "./conversation-repository.ts";
import { PostgresAgentSessionRepository } from "./agent-session-repository.ts";
import { PostgresAgentStepRepository } from "./agent-step-repository.ts";
import { PostgresSettingsRepository } from "./settings-repository.ts";

/** The database could not be reached or migrated; the message names the host, never the password. */
export class PostgresUnavailableError extends Error {
  readonly code = "DATABASE_UNAVAILABLE";
}

class PostgresStorage implements Storage {
  readonly workflows: PostgresWorkflowRepository;
  readonly agents: AgentProfileRepository;
  readonly scenes: SceneRepository;
  readonly runs: PostgresRunRepository;
  readonly observations: PostgresObservationRepository;
  readonly events: PostgresEventRepository;
  readonly llmProfiles: PostgresLlmProfileRepository;
  readonly meta: PostgresMetaRepository;
  readonly conversations: PostgresConversationRepository;
  readonly agentSessions: PostgresAgentSessionRepository;
  readonly agentSteps: PostgresAgentStepRepository;
  readonly settings: PostgresSettingsRepository;

  constructor(
    readonly sql: PostgresConnection,
    readonly redactor: SecretRedactor,
  ) {
    this.workflows = new PostgresWorkflowRepository(sql);
    this.agents = postgresAgentProfileRepository(sql);
    this.scenes = postgresSceneRepository(sql);
    this.runs = new PostgresRunRepository(sql, redactor);
    this.observations = new PostgresObservationRepository(sql, redactor);
    this.events = new PostgresEventRepository(sql);
    this.llmProfiles = new PostgresLlmProfileRepository(sql);
    this.meta = new PostgresMetaRepository(sql);
    this.conversations = new PostgresConversationRepository(sql, redactor);
    this.agentSessions = new PostgresAgentSessionRepository(sql, redactor);
    this.agentSteps = new PostgresAgentStepRepository(sql, redactor);
    this.settings = new PostgresSettingsRepository(sql);
  }

  async writeBatch(batch: WriteBatch): Promise<void> {
    await this.sql.transaction(async () => {
      for (const run of batch.newRuns) await this.runs.create(run.record, run.workflow);
      await this.events.append(batch.events);
      await this.observations.upsert(batch.observations);
      for (const final of batch.finalObservations) await this.observations.replaceForRun(final.runId, final.observations);
      for (const update of batch.runUpdates) await this.runs.update(update);
    });
  }

  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }

  async close(): Promise<void> {
    await this.workflows.close();
    await this.sql.sql.close({ timeout: 5 });
  }
}

/** The URL without its password, for messages and logs. */
export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.username ? `${parsed.username}@` : ""}${parsed.host}${parsed.pathname}`;
  } catch {
    return "(an unreadable URL)";
  }
}

export interface PostgresStorageOptions {
  /** Connections in this process's pool. Default 10. */
  maxConnections?: number;
}

/** Connects to `url`, brings the schema up to date (under an advisory lock, so processes starting together do not race) and opens every repository. */
export async function openPostgresStorage(url: string, redactor = new SecretRedactor(), options: PostgresStorageOptions = {}): Promise<Storage> {
  const password = URL.canParse(url) ? decodeURIComponent(new URL(url).password) : "";
  if (password) redactor.set("database-url", "database password", [password]);
  const sql = new SQL(url, { max: options.maxConnections ?? 10, idleTimeout: 30, connectionTimeout: 10 });
  try {
    await runPostgresMigrations(sql);
    const storage = new PostgresStorage(new PostgresConnection(sql), redactor);
    await storage.workflows.start();
    return storage;
  } catch (error) {
    await sql.close({ timeout: 1 }).catch(() => undefined);
    if (error instanceof PostgresSchemaTooNewError) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new PostgresUnavailableError(`Could not open the PostgreSQL storage at ${describeDatabaseUrl(url)}: ${redactor.text(detail.replaceAll(url, describeDatabaseUrl(url)))}`);
  }
}
