import { z } from "zod";
import type { LlmPrices } from "@weft/types";
import { flag, num, optionalNum, present } from "../storage/row-values.ts";
import { nameOrder } from "../storage/document-table.ts";
import { Table } from "../storage/table.ts";
import { ddlStep } from "../storage/ddl.ts";
import type { Migration } from "../storage/migrations.ts";

const LlmProviderSchema = z.enum(["openai-compatible", "demo"]);
/** A status this Weft does not know (a newer one's) reads as not tested. */
const HealthStatusSchema = z.enum(["unknown", "ok", "failed"]).catch("unknown");
type HealthStatus = z.infer<typeof HealthStatusSchema>;

/** An LLM profile as stored. The key is only ever held encrypted here (see secrets/secret-box.ts). */
export interface StoredLlmProfile {
  id: string;
  name: string;
  /** `demo`: the embedded demo LLM, whose address is only known once the server runs. */
  provider: z.infer<typeof LlmProviderSchema>;
  baseUrl: string;
  model: string;
  apiKeyEncrypted?: string;
  apiKeyMasked?: string;
  timeoutMs: number;
  temperature?: number;
  contextWindow?: number;
  passBackReasoning: boolean;
  maxRetries: number;
  /** US dollars per million tokens; each absent price is unknown. */
  prices?: LlmPrices;
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

/** The `llm_profiles` table as both engines read it: flags are SQLite's 0/1 or PostgreSQL's BOOLEAN, BIGINT times text on PostgreSQL. */
interface LlmProfileRow {
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
  price_input: number | null;
  price_cached_input: number | null;
  price_output: number | null;
  is_default: number | boolean;
  health_status: string;
  last_tested_at: number | string | null;
  created_at: number | string;
  updated_at: number | string;
}

function decodeLlmProfile(row: LlmProfileRow): StoredLlmProfile {
  const prices = present({ inputPerMillion: optionalNum(row.price_input), cachedInputPerMillion: optionalNum(row.price_cached_input), outputPerMillion: optionalNum(row.price_output) });
  return {
    id: row.id,
    name: row.name,
    provider: LlmProviderSchema.parse(row.provider),
    baseUrl: row.base_url,
    model: row.model,
    timeoutMs: row.timeout_ms,
    passBackReasoning: flag(row.pass_back_reasoning),
    maxRetries: row.max_retries,
    isDefault: flag(row.is_default),
    healthStatus: HealthStatusSchema.parse(row.health_status),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
    ...present({
      apiKeyEncrypted: row.api_key_encrypted,
      apiKeyMasked: row.api_key_masked,
      temperature: row.temperature,
      contextWindow: row.context_window,
      prices: Object.keys(prices).length > 0 ? prices : undefined,
      lastTestedAt: optionalNum(row.last_tested_at),
    }),
  };
}

export class LlmProfileTable extends Table<{ llm_profiles: LlmProfileRow }> implements LlmProfileRepository {
  private selectAll() {
    return this.db.selectFrom("llm_profiles").selectAll().orderBy("is_default", "desc").orderBy(nameOrder(this.engine.sql.engine));
  }

  async list(): Promise<StoredLlmProfile[]> {
    return (await this.selectAll().execute()).map(decodeLlmProfile);
  }

  async get(id: string): Promise<StoredLlmProfile | undefined> {
    return (await this.selectAll().where("id", "=", id).execute()).map(decodeLlmProfile)[0];
  }

  async getDefault(): Promise<StoredLlmProfile | undefined> {
    return (await this.selectAll().where("is_default", "=", true).limit(1).execute()).map(decodeLlmProfile)[0];
  }

  async save(p: StoredLlmProfile): Promise<void> {
    await this.engine.transaction(async () => {
      if (p.isDefault) await this.db.updateTable("llm_profiles").set({ is_default: false }).where("id", "<>", p.id).where("is_default", "=", true).execute();
      const row: LlmProfileRow = {
        id: p.id,
        name: p.name,
        provider: p.provider,
        base_url: p.baseUrl,
        model: p.model,
        api_key_encrypted: p.apiKeyEncrypted ?? null,
        api_key_masked: p.apiKeyMasked ?? null,
        timeout_ms: p.timeoutMs,
        temperature: p.temperature ?? null,
        context_window: p.contextWindow ?? null,
        // Booleans on both engines: SQLite stores them as 1/0.
        pass_back_reasoning: p.passBackReasoning,
        max_retries: p.maxRetries,
        price_input: p.prices?.inputPerMillion ?? null,
        price_cached_input: p.prices?.cachedInputPerMillion ?? null,
        price_output: p.prices?.outputPerMillion ?? null,
        is_default: p.isDefault,
        health_status: p.healthStatus,
        last_tested_at: p.lastTestedAt ?? null,
        created_at: p.createdAt,
        updated_at: p.updatedAt,
      };
      await this.upsertRows("llm_profiles", ["id"], [row], ["created_at"]);
    });
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.deleteFrom("llm_profiles").where("id", "=", id).executeTakeFirst()).numDeletedRows > 0n;
  }

  async setHealth(id: string, status: HealthStatus, testedAt: number): Promise<void> {
    await this.db.updateTable("llm_profiles").set({ health_status: status, last_tested_at: testedAt }).where("id", "=", id).execute();
  }
}

/** Prices per profile (issue 35): three nullable columns, NULL = unknown. */
export const LLM_PRICE_MIGRATIONS: readonly Migration[] = [
  ddlStep("llm-profiles-001 prices", ({ real }) => [
    `ALTER TABLE llm_profiles ADD COLUMN price_input ${real}`,
    `ALTER TABLE llm_profiles ADD COLUMN price_cached_input ${real}`,
    `ALTER TABLE llm_profiles ADD COLUMN price_output ${real}`,
  ]),
];
