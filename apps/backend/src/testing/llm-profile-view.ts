import { z } from "zod";

/**
 * An LLM profile as the API shows it (`LlmProfileView`): the fields tests read, the key only as its
 * mask. Loose: every other field is kept, so a test can see that no `apiKey` came back.
 */
export const LlmProfileViewSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  isDefault: z.boolean(),
  hasApiKey: z.boolean(),
  apiKeyMasked: z.string().nullable(),
  healthStatus: z.enum(["unknown", "ok", "failed"]),
});
/** GET /api/llm-profiles. */
export const LlmProfileListSchema = z.object({ profiles: z.array(LlmProfileViewSchema) });
/** GET, POST and PUT /api/llm-profiles(/:id). */
export const LlmProfileAnswerSchema = z.object({ profile: LlmProfileViewSchema });
/** POST /api/llm-profiles/:id/test: whether the connection works, else why, with a hint. */
export const LlmProfileTestSchema = z.object({ ok: z.boolean(), error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional() }).optional() });
