import { AgentProfileSchema, type AgentProfile } from "@weft/types";
import type { AgentsStorage } from "./agents-storage.ts";
import { ServiceError } from "../service-error.ts";

/**
 * Version `version` of agent `agentId`'s profile, as a profile this server runs (a fork's live steps, a scene agent
 * pinned to a version). `field` names where the version was asked for, in the refusals: NOT_FOUND when the agent has
 * no such version (saying which it has), CONFLICT when the stored version no longer reads as a profile.
 */
export async function profileAtVersion(storage: AgentsStorage, agentId: string, version: number, field: string): Promise<AgentProfile> {
  const found = await storage.agents.versions.get(agentId, version);
  if (!found) {
    const latest = (await storage.agents.versions.latest(agentId))?.number ?? 0;
    throw new ServiceError(
      "NOT_FOUND",
      `${field}: agent "${agentId}" has no version ${version} (its versions are 1 to ${latest}, fewer if retention removed old ones; GET /api/agents/${agentId}/versions lists them).`,
      { kind: "version", id: agentId, version },
    );
  }
  // Revision 0: this version runs as it was saved; a later save of the agent does not change it.
  const parsed = AgentProfileSchema.safeParse({ ...(found.content as object), revision: 0 });
  if (!parsed.success) throw new ServiceError("CONFLICT", `Version ${version} of agent "${agentId}" is not a profile this server can run: ${parsed.error.issues[0]?.message ?? "invalid"}.`);
  return parsed.data;
}
