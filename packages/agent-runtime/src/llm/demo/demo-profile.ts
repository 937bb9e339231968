import { LlmProfileSchema, type LlmProfile } from "@weft/types";
import { DEMO_MODEL } from "./demo-llm-server.ts";

export const DEMO_PROFILE_ID = "demo";

/** The LLM profile of a running demo LLM: what Weft uses until the user adds a real provider. */
export function demoLlmProfile(baseUrl: string): LlmProfile {
  return LlmProfileSchema.parse({ id: DEMO_PROFILE_ID, name: "Demo LLM (offline)", baseUrl, model: DEMO_MODEL, timeoutMs: 30_000 });
}
