import { AgentInstance, type AgentInstanceOptions } from "../../packages/agent-runtime/src/index.ts";
import type { Storage } from "../../apps/backend/src/testing/storage.ts";

/** The agent loop's parts but its stores, which come from the storage. */
export type AgentParts = Omit<AgentInstanceOptions, "conversations" | "stateStore">;

/**
 * One user message in a new conversation of the agent, run to its answer (the bench's model acts until it answers)
 * and its steps stored as the server stores them; returns how many steps it took.
 */
export async function converse(parts: AgentParts, storage: Storage): Promise<number> {
  const created = await AgentInstance.create({ ...parts, conversations: storage.conversations, stateStore: storage.agentSessions });
  if (!created.ok) throw new Error(created.error.message);
  const sent = await created.value.sendMessage("What is 6 times 7? Check it nine times.");
  if (!sent.ok) throw new Error(sent.error.message);
  if (sent.value.status !== "completed") throw new Error(`the loop ended ${sent.value.status}: ${sent.value.reason ?? ""}`);
  await storage.agentSteps.save(sent.value.conversationId, sent.value.steps);
  created.value.dispose();
  return sent.value.steps.length;
}
