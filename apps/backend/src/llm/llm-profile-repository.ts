import { z } from "zod";
import type { LlmPrices } from "@weft/types";
import { flag, num, optionalNum, present, type NullsFor, type RowOf } from "../storage/row-values.ts";
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

/** The `llm_profiles` table as both engines answer it (`RowOf`): the prices in three columns. */
type LlmProfileRow = RowOf<Omit<StoredLlmProfile, "prices">, "lastTestedAt" | "createdAt" | "updatedAt"> & { priceInput: number | null; priceCachedInput: number | null; priceOutput: number | null };

function decodeLlmProfile(row: LlmProfileRow): StoredLlmProfile {
  const { priceInput, priceCachedInput, priceOutput, apiKeyEncrypted, apiKeyMasked, temperature, contextWindow, lastTestedAt, ...always } = row;
  const prices = present({ inputPerMillion: optionalNum(priceInput), cachedInputPerMillion: optionalNum(priceCachedInput), outputPerMillion: optionalNum(priceOutput) });
  return {
    ...always,
    provider: LlmProviderSchema.parse(row.provider),
    passBackReasoning: flag(row.passBackReasoning),
    isDefault: flag(row.isDefault),
    healthStatus: HealthStatusSchema.parse(row.healthStatus),
    createdAt: num(row.createdAt),
    updatedAt: num(row.updatedAt),
    ...present({ apiKeyEncrypted, apiKeyMasked, temperature, contextWindow, prices: Object.keys(prices).length > 0 ? prices : undefined, lastTestedAt: optionalNum(lastTestedAt) }),
  };
}

/** The LLM profiles, the default first, then by name (one implementation, for both engines). */
export class LlmProfileTable extends Table<{ llm_profiles: LlmProfileRow }> {
  protected override readonly db = this.camelCase();

  private selectAll() {
    return this.db.selectFrom("llm_profiles").selectAll().orderBy("isDefault", "desc").orderBy(nameOrder(this.engine.sql.engine));
  }

  async list(): Promise<StoredLlmProfile[]> {
    return (await this.selectAll().execute()).map(decodeLlmProfile);
  }

  async get(id: string): Promise<StoredLlmProfile | undefined> {
    return (await this.selectAll().where("id", "=", id).execute()).map(decodeLlmProfile)[0];
  }

  async getDefault(): Promise<StoredLlmProfile | undefined> {
    return (await this.selectAll().where("isDefault", "=", true).limit(1).execute()).map(decodeLlmProfile)[0];
  }

  /** Inserts or replaces the profile; when it is the default, no other profile stays default. */
  async save({ prices, ...profile }: StoredLlmProfile): Promise<void> {
    await this.engine.transaction(async () => {
      if (profile.isDefault) await this.db.updateTable("llm_profiles").set({ isDefault: false }).where("id", "<>", profile.id).where("isDefault", "=", true).execute();
      // Every nullable column named, so a replaced profile keeps no old value; booleans are stored as SQLite's 1/0.
      const nulls: NullsFor<typeof profile> = { apiKeyEncrypted: null, apiKeyMasked: null, temperature: null, contextWindow: null, lastTestedAt: null };
      const row = { ...nulls, ...profile, priceInput: prices?.inputPerMillion ?? null, priceCachedInput: prices?.cachedInputPerMillion ?? null, priceOutput: prices?.outputPerMillion ?? null };
      await this.upsertRows("llm_profiles", ["id"], [row], ["createdAt"]);
    });
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.deleteFrom("llm_profiles").where("id", "=", id).executeTakeFirst()).numDeletedRows > 0n;
  }

  async setHealth(id: string, status: HealthStatus, testedAt: number): Promise<void> {
    await this.db.updateTable("llm_profiles").set({ healthStatus: status, lastTestedAt: testedAt }).where("id", "=", id).execute();
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
