import { z } from "zod";
import { LlmPricesSchema, type LlmPrices } from "@weft/types";

const url = z
  .string()
  .trim()
  .max(2000)
  .regex(/^https?:\/\/\S+$/, "must be an http:// or https:// URL, e.g. https://api.openai.com/v1")
  .refine((v) => URL.canParse(v), "is not a valid URL");

/** An API key as typed: a non-empty single token (pasted newlines and spaces around it are trimmed). */
const apiKey = z
  .string()
  .trim()
  .min(1, "is empty; omit apiKey to keep the stored key, or send null to remove it")
  .max(4096, "is longer than 4096 characters")
  .regex(/^\S+$/, "must not contain spaces or line breaks");

const fields = {
  name: z.string().trim().min(1).max(200),
  baseUrl: url,
  model: z.string().trim().min(1).max(300),
  timeoutMs: z.number().int().min(1000).max(600_000),
  temperature: z.number().min(0).max(2).nullable(),
  contextWindow: z.number().int().positive().max(100_000_000).nullable(),
  passBackReasoning: z.boolean(),
  maxRetries: z.number().int().min(0).max(10),
  isDefault: z.boolean(),
  /** Each price in US dollars per million tokens; null (or absent) = unknown, and the cost of calls is then unknown. */
  prices: z
    .object({
      inputPerMillion: z.number().nonnegative().max(1_000_000).nullable().optional(),
      cachedInputPerMillion: z.number().nonnegative().max(1_000_000).nullable().optional(),
      outputPerMillion: z.number().nonnegative().max(1_000_000).nullable().optional(),
    })
    .strict()
    .nullable(),
};

/** Prices as sent (null = unknown) as stored: only the known ones; undefined when none is. */
export function pricesOf(sent: z.infer<typeof fields.prices>): LlmPrices | undefined {
  if (!sent) return undefined;
  const prices: LlmPrices = {};
  if (sent.inputPerMillion != null) prices.inputPerMillion = sent.inputPerMillion;
  if (sent.cachedInputPerMillion != null) prices.cachedInputPerMillion = sent.cachedInputPerMillion;
  if (sent.outputPerMillion != null) prices.outputPerMillion = sent.outputPerMillion;
  return Object.keys(prices).length > 0 ? prices : undefined;
}

export const CreateLlmProfileSchema = z
  .object({
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "is lower-case letters, digits, - and _ (at most 64)")
      .optional(),
    provider: z.literal("openai-compatible").default("openai-compatible"),
    name: fields.name,
    baseUrl: fields.baseUrl,
    model: fields.model,
    apiKey: apiKey.optional(),
    timeoutMs: fields.timeoutMs.default(60_000),
    temperature: fields.temperature.optional(),
    contextWindow: fields.contextWindow.optional(),
    passBackReasoning: fields.passBackReasoning.default(false),
    maxRetries: fields.maxRetries.default(2),
    prices: fields.prices.optional(),
    isDefault: fields.isDefault.default(false),
  })
  .strict();
export type CreateLlmProfile = z.infer<typeof CreateLlmProfileSchema>;

/** Fields of the view a client may send back unchanged; they are ignored, never written. */
const readOnly = {
  id: z.unknown().optional(),
  provider: z.unknown().optional(),
  hasApiKey: z.unknown().optional(),
  apiKeyMasked: z.unknown().optional(),
  healthStatus: z.unknown().optional(),
  lastTestedAt: z.unknown().optional(),
  createdAt: z.unknown().optional(),
  updatedAt: z.unknown().optional(),
};

/**
 * Fields to change (unknown fields are refused, so a misspelt one is not silently ignored);
 * an omitted `apiKey` keeps the stored key, `null` removes it. A `baseUrl` other than the stored
 * one clears the stored key unless `apiKey` comes with it: a key never follows a changed endpoint.
 */
export const UpdateLlmProfileSchema = z
  .object({
    ...readOnly,
    name: fields.name.optional(),
    baseUrl: fields.baseUrl.optional(),
    model: fields.model.optional(),
    apiKey: apiKey.nullable().optional(),
    timeoutMs: fields.timeoutMs.optional(),
    temperature: fields.temperature.optional(),
    contextWindow: fields.contextWindow.optional(),
    passBackReasoning: fields.passBackReasoning.optional(),
    maxRetries: fields.maxRetries.optional(),
    prices: fields.prices.optional(),
    isDefault: fields.isDefault.optional(),
  })
  .strict();
export type UpdateLlmProfile = z.infer<typeof UpdateLlmProfileSchema>;

/** A profile as the API shows it: everything but the key, of which only a mask is shown. */
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
  /** US dollars per million tokens; an absent price is unknown. */
  prices: LlmPricesSchema.optional(),
  isDefault: z.boolean(),
  hasApiKey: z.boolean(),
  apiKeyMasked: z.string().nullable(),
  healthStatus: z.enum(["unknown", "ok", "failed"]),
  lastTestedAt: z.number().optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type LlmProfileView = z.output<typeof LlmProfileViewSchema>;
