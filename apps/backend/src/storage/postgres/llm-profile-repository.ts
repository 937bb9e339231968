import { HEALTH_STATUSES, LlmProviderSchema, type HealthStatus, type LlmProfileRepository, type StoredLlmProfile } from "../llm-profile-repository.ts";
import { num, optionalNum, type PostgresConnection } from "./connection.ts";

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
  pass_back_reasoning: boolean;
  max_retries: number;
  is_default: boolean;
  health_status: string;
  last_tested_at: string | number | null;
  created_at: string | number;
  updated_at: string | number;
}

function decode(row: Row): StoredLlmProfile {
  const profile: StoredLlmProfile = {
    id: row.id,
    name: row.name,
    provider: LlmProviderSchema.parse(row.provider),
    baseUrl: row.base_url,
    model: row.model,
    timeoutMs: row.timeout_ms,
    passBackReasoning: row.pass_back_reasoning,
    maxRetries: row.max_retries,
    isDefault: row.is_default,
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

const ORDER = `is_default DESC, lower(name) COLLATE "C", id COLLATE "C"`;

export class PostgresLlmProfileRepository implements LlmProfileRepository {
  constructor(private readonly pg: PostgresConnection) {}

  async list(): Promise<StoredLlmProfile[]> {
    return (await this.pg.current().unsafe<Row[]>(`SELECT * FROM llm_profiles ORDER BY ${ORDER}`)).map(decode);
  }

  async get(id: string): Promise<StoredLlmProfile | undefined> {
    const [row] = await this.pg.current().unsafe<Row[]>("SELECT * FROM llm_profiles WHERE id = $1", [id]);
    return row ? decode(row) : undefined;
  }

  async getDefault(): Promise<StoredLlmProfile | undefined> {
    const [row] = await this.pg.current().unsafe<Row[]>(`SELECT * FROM llm_profiles WHERE is_default ORDER BY ${ORDER} LIMIT 1`);
    return row ? decode(row) : undefined;
  }

  async save(p: StoredLlmProfile): Promise<void> {
    await this.pg.transaction(async () => {
      const sql = this.pg.current();
      if (p.isDefault) await sql.unsafe("UPDATE llm_profiles SET is_default = FALSE WHERE id <> $1 AND is_default", [p.id]);
      await sql.unsafe(
        `INSERT INTO llm_profiles (id, name, provider, base_url, model, api_key_encrypted, api_key_masked, timeout_ms, temperature, context_window, pass_back_reasoning, max_retries, is_default, health_status, last_tested_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, provider = excluded.provider, base_url = excluded.base_url, model = excluded.model,
           api_key_encrypted = excluded.api_key_encrypted, api_key_masked = excluded.api_key_masked, timeout_ms = excluded.timeout_ms,
           temperature = excluded.temperature, context_window = excluded.context_window,
           pass_back_reasoning = excluded.pass_back_reasoning, max_retries = excluded.max_retries, is_default = excluded.is_default,
           health_status = excluded.health_status, last_tested_at = excluded.last_tested_at, updated_at = excluded.updated_at`,
        [
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
        ],
      );
    });
  }

  async delete(id: string): Promise<boolean> {
    return (await this.pg.current().unsafe("DELETE FROM llm_profiles WHERE id = $1", [id])).count > 0;
  }

  async setHealth(id: string, status: HealthStatus, testedAt: number): Promise<void> {
    await this.pg.current().unsafe("UPDATE llm_profiles SET health_status = $1, last_tested_at = $2 WHERE id = $3", [status, testedAt, id]);
  }
}
