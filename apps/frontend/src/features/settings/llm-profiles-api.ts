import { z } from "zod";
import { ApiClient } from "../../shared/api/client.ts";
import { ok } from "../../shared/api/errors.ts";

/** A profile as the API shows it (docs/api.md "LLM profiles"): never the key, only its mask. */
export const LlmProfileViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  provider: z.enum(["openai-compatible", "demo"]),
  baseUrl: z.string(),
  model: z.string(),
  timeoutMs: z.number(),
  temperature: z.number().optional(),
  contextWindow: z.number().optional(),
  passBackReasoning: z.boolean(),
  maxRetries: z.number(),
  prices: z.object({ inputPerMillion: z.number().optional(), cachedInputPerMillion: z.number().optional(), outputPerMillion: z.number().optional() }).optional(),
  isDefault: z.boolean(),
  hasApiKey: z.boolean(),
  apiKeyMasked: z.string().nullable(),
  healthStatus: z.enum(["unknown", "ok", "failed"]),
  lastTestedAt: z.number().optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type LlmProfileView = z.infer<typeof LlmProfileViewSchema>;

const ProfileListSchema = z.object({ profiles: z.array(LlmProfileViewSchema) });
const ProfileSchema = z.object({ profile: LlmProfileViewSchema });
/** A change's answer: `apiKeyCleared` when the base URL moved without a new key (a key never follows a changed address). */
const UpdatedSchema = z.object({ profile: LlmProfileViewSchema, apiKeyCleared: z.boolean(), notice: z.string().optional() });

export const ConnectionTestSchema = z.object({
  ok: z.boolean(),
  latencyMs: z.number(),
  model: z.string().optional(),
  error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional() }).optional(),
});
export type ConnectionTest = z.infer<typeof ConnectionTestSchema>;

/** The editable fields; `apiKey`: omitted keeps the stored key, null removes it. */
export interface LlmProfileDraft {
  name: string;
  baseUrl: string;
  model: string;
  apiKey?: string | null;
  timeoutMs: number;
  temperature: number | null;
  contextWindow: number | null;
  passBackReasoning: boolean;
  maxRetries: number;
  /** US dollars per million tokens; null = unknown (the cost of calls is then shown as unknown, never guessed). */
  prices: { inputPerMillion: number | null; cachedInputPerMillion: number | null; outputPerMillion: number | null };
  isDefault: boolean;
}

const enc = encodeURIComponent;

/** LLM profiles: several OpenAI-compatible endpoints per installation, keys encrypted by the server. */
export class LlmProfilesApi extends ApiClient {
  async list() {
    const r = await this.request("GET", "/api/llm-profiles", ProfileListSchema);
    return r.ok ? ok(r.value.profiles) : r;
  }

  async create(draft: LlmProfileDraft) {
    const { temperature, contextWindow, apiKey, ...rest } = draft;
    const body = { ...rest, ...(temperature === null ? {} : { temperature }), ...(contextWindow === null ? {} : { contextWindow }), ...(apiKey ? { apiKey } : {}) };
    const r = await this.request("POST", "/api/llm-profiles", ProfileSchema, body);
    return r.ok ? ok(r.value.profile) : r;
  }

  async update(id: string, changes: Partial<LlmProfileDraft>) {
    return this.request("PUT", `/api/llm-profiles/${enc(id)}`, UpdatedSchema, changes);
  }

  async remove(id: string) {
    const r = await this.request("DELETE", `/api/llm-profiles/${enc(id)}`, ProfileSchema);
    return r.ok ? ok(r.value.profile) : r;
  }

  test(id: string) {
    return this.request("POST", `/api/llm-profiles/${enc(id)}/test`, ConnectionTestSchema);
  }
}
