import type { Database, Statement } from "bun:sqlite";
import { z } from "zod";
import { flag, num, optionalNum } from "./row-values.ts";

export const LLM_PROVIDERS = ["openai-compatible", "demo"] as const;
export const LlmProviderSchema = z.enum(LLM_PROVIDERS);
export type LlmProvider = z.infer<typeof LlmProviderSchema>;

export const HEALTH_STATUSES = ["unknown", "ok", "failed"] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

/** An LLM profile as stored. The key is only ever held encrypted here (see secrets/secret-box.ts). */
export interface StoredLlmProfile {
  id: string;
  name: string;
  /** `demo`: the embedded demo LLM, whose address is only known once the server runs. */
  provider: LlmProvider;
  baseUrl: string;
  model: string;
  apiKeyEncrypted?: string;
  apiKeyMasked?: string;
  timeoutMs: number;
  temperature?: number;
  contextWindow?: number;
  passBackReasoning: boolean;
  maxRetries: number;
  isDefault: boolean;
  healthStatus: HealthStatus;
  lastTestedAt?: number;
  createdAt: number;
  updatedAt: number;
}

export interface LlmProfileRepository {
  list(): Promise<StoredLlmProfile[]>;
  get(id: string): Promise<StoredLlmProfile | undefined>;
  getDefault(): Promise<StoredLlmProfile | undefined>;
  /** Inserts or replaces the profile; when it is the default, no other profile stays default. */
  save(profile: StoredLlmProfile): Promise<void>;
  delete(id: string): Promise<boolean>;
  setHealth(id: string, status: HealthStatus, testedAt: number): Promise<void>;
}

/** A profile's row as both engines read it: flags are SQLite's 0/1 or PostgreSQL's BOOLEAN, BIGINT times text on PostgreSQL. */
export interface LlmProfileRow {
  id: string;
  name: string;
  provider: string;
  base_url: string;
  model: string;
  api_key_encrypted: string | null;
  api_key_masked: string | null;
  timeout_ms: number;
  temperature: number | null;
  context_window: number | null;
  pass_back_reasoning: number | boolean;
  max_retries: number;
  is_default: number | boolean;
  health_status: string;
  last_tested_at: number | string | null;
  created_at: number | string;
  updated_at: number | string;
}

export function decodeLlmProfile(row: LlmProfileRow): StoredLlmProfile {
  const profile: StoredLlmProfile = {
    id: row.id,
    name: row.name,
    provider: LlmProviderSchema.parse(row.provider),
    baseUrl: row.base_url,
    model: row.model,
    timeoutMs: row.timeout_ms,
    passBackReasoning: flag(row.pass_back_reasoning),
    maxRetries: row.max_retries,
    isDefault: flag(row.is_default),
    healthStatus: (HEALTH_STATUSES as readonly string[]).includes(row.health_status) ? (row.health_status as HealthStatus) : "unknown",
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
  if (row.api_key_encrypted !== null) profile.apiKeyEncrypted = row.api_key_encrypted;
  if (row.api_key_masked !== null) profile.apiKeyMasked = row.api_key_masked;
  if (row.temperature !== null) profile.temperature = row.temperature;
  if (row.context_window !== null) profile.contextWindow = row.context_window;
  const lastTestedAt = optionalNum(row.last_tested_at);
  if (lastTestedAt !== undefined) profile.lastTestedAt = lastTestedAt;
  return profile;
}

const COLUMNS = [
  "id",
  "name",
  "provider",
  "base_url",
  "model",
  "api_key_encrypted",
  "api_key_masked",
  "timeout_ms",
  "temperature",
  "context_window",
  "pass_back_reasoning",
  "max_retries",
  "is_default",
  "health_status",
  "last_tested_at",
  "created_at",
  "updated_at",
] as const;

/** Insert or replace (all but `created_at`), written with the engine's placeholder for the n-th of `llmProfileValues`. */
export function llmProfileUpsertSql(placeholder: (n: number) => string): string {
  const replaced = COLUMNS.filter((c) => c !== "id" && c !== "created_at").map((c) => `${c} = excluded.${c}`);
  return `INSERT INTO llm_profiles (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((_, i) => placeholder(i + 1)).join(", ")}) ON CONFLICT (id) DO UPDATE SET ${replaced.join(", ")}`;
}

/** The profile's values in the upsert's column order (flags as booleans: SQLite stores them as 1/0). */
export function llmProfileValues(p: StoredLlmProfile): Array<string | number | boolean | null> {
  return [
    p.id,
    p.name,
    p.provider,
    p.baseUrl,
    p.model,
    p.apiKeyEncrypted ?? null,
    p.apiKeyMasked ?? null,
    p.timeoutMs,
    p.temperature ?? null,
    p.contextWindow ?? null,
    p.passBackReasoning,
    p.maxRetries,
    p.isDefault,
    p.healthStatus,
    p.lastTestedAt ?? null,
    p.createdAt,
    p.updatedAt,
  ];
}

export class SqliteLlmProfileRepository implements LlmProfileRepository {
  private readonly selectAll: Statement<LlmProfileRow, []>;
  private readonly selectOne: Statement<LlmProfileRow, [string]>;
  private readonly selectDefault: Statement<LlmProfileRow, []>;
  private readonly upsert: Statement;
  private readonly clearDefault: Statement<unknown, [string]>;
  private readonly remove: Statement<unknown, [string]>;
  private readonly health: Statement<unknown, [string, number, string]>;

  constructor(private readonly db: Database) {
    this.selectAll = db.query("SELECT * FROM llm_profiles ORDER BY is_default DESC, name COLLATE NOCASE, id");
    this.selectOne = db.query("SELECT * FROM llm_profiles WHERE id = ?");
    this.selectDefault = db.query("SELECT * FROM llm_profiles WHERE is_default = 1 LIMIT 1");
    this.upsert = db.query(llmProfileUpsertSql(() => "?"));
    this.clearDefault = db.query("UPDATE llm_profiles SET is_default = 0 WHERE id <> ?");
    this.remove = db.query("DELETE FROM llm_profiles WHERE id = ?");
    this.health = db.query("UPDATE llm_profiles SET health_status = ?, last_tested_at = ? WHERE id = ?");
  }

  async list(): Promise<StoredLlmProfile[]> {
    return this.selectAll.all().map(decodeLlmProfile);
  }

  async get(id: string): Promise<StoredLlmProfile | undefined> {
    const row = this.selectOne.get(id);
    return row ? decodeLlmProfile(row) : undefined;
  }

  async getDefault(): Promise<StoredLlmProfile | undefined> {
    const row = this.selectDefault.get();
    return row ? decodeLlmProfile(row) : undefined;
  }

  async save(p: StoredLlmProfile): Promise<void> {
    this.db.transaction(() => {
      if (p.isDefault) this.clearDefault.run(p.id);
      this.upsert.run(...llmProfileValues(p));
    })();
  }

  async delete(id: string): Promise<boolean> {
    return this.remove.run(id).changes > 0;
  }

  async setHealth(id: string, status: HealthStatus, testedAt: number): Promise<void> {
    this.health.run(status, testedAt, id);
  }
}
