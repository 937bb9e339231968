import type { Database, Statement } from "bun:sqlite";
import { z } from "zod";

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

interface Row {
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
  pass_back_reasoning: number;
  max_retries: number;
  is_default: number;
  health_status: string;
  last_tested_at: number | null;
  created_at: number;
  updated_at: number;
}

function decode(row: Row): StoredLlmProfile {
  const profile: StoredLlmProfile = {
    id: row.id,
    name: row.name,
    provider: LlmProviderSchema.parse(row.provider),
    baseUrl: row.base_url,
    model: row.model,
    timeoutMs: row.timeout_ms,
    passBackReasoning: row.pass_back_reasoning === 1,
    maxRetries: row.max_retries,
    isDefault: row.is_default === 1,
    healthStatus: (HEALTH_STATUSES as readonly string[]).includes(row.health_status) ? (row.health_status as HealthStatus) : "unknown",
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.api_key_encrypted !== null) profile.apiKeyEncrypted = row.api_key_encrypted;
  if (row.api_key_masked !== null) profile.apiKeyMasked = row.api_key_masked;
  if (row.temperature !== null) profile.temperature = row.temperature;
  if (row.context_window !== null) profile.contextWindow = row.context_window;
  if (row.last_tested_at !== null) profile.lastTestedAt = row.last_tested_at;
  return profile;
}

export class SqliteLlmProfileRepository implements LlmProfileRepository {
  private readonly selectAll: Statement<Row, []>;
  private readonly selectOne: Statement<Row, [string]>;
  private readonly selectDefault: Statement<Row, []>;
  private readonly upsert: Statement;
  private readonly clearDefault: Statement<unknown, [string]>;
  private readonly remove: Statement<unknown, [string]>;
  private readonly health: Statement<unknown, [string, number, string]>;

  constructor(private readonly db: Database) {
    this.selectAll = db.query("SELECT * FROM llm_profiles ORDER BY is_default DESC, name COLLATE NOCASE, id");
    this.selectOne = db.query("SELECT * FROM llm_profiles WHERE id = ?");
    this.selectDefault = db.query("SELECT * FROM llm_profiles WHERE is_default = 1 LIMIT 1");
    this.upsert = db.query(
      `INSERT INTO llm_profiles (id, name, provider, base_url, model, api_key_encrypted, api_key_masked, timeout_ms, temperature, context_window, pass_back_reasoning, max_retries, is_default, health_status, last_tested_at, created_at, updated_at)
       VALUES ($id, $name, $provider, $baseUrl, $model, $apiKeyEncrypted, $apiKeyMasked, $timeoutMs, $temperature, $contextWindow, $passBackReasoning, $maxRetries, $isDefault, $healthStatus, $lastTestedAt, $createdAt, $updatedAt)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, provider = excluded.provider, base_url = excluded.base_url, model = excluded.model,
         api_key_encrypted = excluded.api_key_encrypted, api_key_masked = excluded.api_key_masked, timeout_ms = excluded.timeout_ms,
         temperature = excluded.temperature, context_window = excluded.context_window,
         pass_back_reasoning = excluded.pass_back_reasoning, max_retries = excluded.max_retries, is_default = excluded.is_default,
         health_status = excluded.health_status, last_tested_at = excluded.last_tested_at, updated_at = excluded.updated_at`,
    );
    this.clearDefault = db.query("UPDATE llm_profiles SET is_default = 0 WHERE id <> ?");
    this.remove = db.query("DELETE FROM llm_profiles WHERE id = ?");
    this.health = db.query("UPDATE llm_profiles SET health_status = ?, last_tested_at = ? WHERE id = ?");
  }

  async list(): Promise<StoredLlmProfile[]> {
    return this.selectAll.all().map(decode);
  }

  async get(id: string): Promise<StoredLlmProfile | undefined> {
    const row = this.selectOne.get(id);
    return row ? decode(row) : undefined;
  }

  async getDefault(): Promise<StoredLlmProfile | undefined> {
    const row = this.selectDefault.get();
    return row ? decode(row) : undefined;
  }

  async save(p: StoredLlmProfile): Promise<void> {
    this.db.transaction(() => {
      if (p.isDefault) this.clearDefault.run(p.id);
      this.upsert.run({
        id: p.id,
        name: p.name,
        provider: p.provider,
        baseUrl: p.baseUrl,
        model: p.model,
        apiKeyEncrypted: p.apiKeyEncrypted ?? null,
        apiKeyMasked: p.apiKeyMasked ?? null,
        timeoutMs: p.timeoutMs,
        temperature: p.temperature ?? null,
        contextWindow: p.contextWindow ?? null,
        passBackReasoning: p.passBackReasoning ? 1 : 0,
        maxRetries: p.maxRetries,
        isDefault: p.isDefault ? 1 : 0,
        healthStatus: p.healthStatus,
        lastTestedAt: p.lastTestedAt ?? null,
        createdAt: p.createdAt,
        updatedAt: p.updatedAt,
      });
    })();
  }

  async delete(id: string): Promise<boolean> {
    return this.remove.run(id).changes > 0;
  }

  async setHealth(id: string, status: HealthStatus, testedAt: number): Promise<void> {
    this.health.run(status, testedAt, id);
  }
}
