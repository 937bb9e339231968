import { DEMO_MODEL, DEMO_PROFILE_ID } from "@weft/agent-runtime";
import type { StoredLlmProfile } from "./llm-profile-repository.ts";

/** The built-in profile: the embedded demo LLM, whose address is filled in at run time. */
export function demoProfile(now: number): StoredLlmProfile {
  return {
    id: DEMO_PROFILE_ID,
    name: "Demo LLM (built in, offline)",
    provider: "demo",
    baseUrl: "",
    model: DEMO_MODEL,
    timeoutMs: 30_000,
    passBackReasoning: false,
    maxRetries: 0,
    isDefault: true,
    healthStatus: "unknown",
    createdAt: now,
    updatedAt: now,
  };
}
