import { z } from "zod";

/** An LLM profile as the API shows it (`LlmProfileView`): the fields tests read, the key only as its mask. */
export const LlmProfileViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  isDefault: z.boolean(),
  hasApiKey: z.boolean(),
  apiKeyMasked: z.string().nullable(),
  healthStatus: z.enum(["unknown", "ok", "failed"]),
});
/** GET /api/llm-profiles. */
export const LlmProfileListSchema = z.object({ profiles: z.array(LlmProfileViewSchema) });
