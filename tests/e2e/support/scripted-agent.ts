import { expect } from "vitest";
import type { ScriptedLlmServer } from "../../../packages/agent-runtime/src/index.ts";
import { AgentAnswerSchema, ProfileIdAnswerSchema } from "../../../apps/backend/src/testing/answers.ts";
import type { Weft } from "./weft.ts";

/** Stores an agent profile that thinks with `llm` (through an LLM profile of its own) and the example deliberation workflow. */
export async function addScriptedAgent(weft: Weft, llm: ScriptedLlmServer, agent: { id: string; name: string; tools: string[] }): Promise<void> {
  const profile = await weft.api("POST", "/api/llm-profiles", { name: `scripted-${agent.id}`, baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
  expect(profile.status).toBe(201);
  expect((await weft.api("POST", "/api/agents", { ...agent, deliberationWorkflowId: "agent-deliberation", llmProfileId: ProfileIdAnswerSchema.parse(profile.body).profile.id })).status).toBe(201);
}

/** Saves agent `id` again with `change` applied: its profile gets a new version (the earlier ones stay listed). */
export async function saveAgentVersion(weft: Weft, id: string, change: Record<string, unknown>): Promise<void> {
  const agent = AgentAnswerSchema.parse((await weft.api("GET", `/api/agents/${id}`)).body).agent;
  expect((await weft.api("PUT", `/api/agents/${id}`, { agent: { ...agent, ...change }, baseRevision: agent.revision })).status).toBe(200);
}
