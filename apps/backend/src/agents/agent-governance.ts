import { namesAgent } from "@weft/agent-runtime";
import type { AgentChange, AgentProfile, PermissionPolicy, Scene } from "@weft/types";
import { ApiError } from "../api/errors.ts";
import type { DocumentWrite } from "../api/document-routes.ts";
import { principalOf } from "../auth/principal.ts";
import type { AgentsStorage } from "./agents-storage.ts";

/**
 * Agent ids are chosen by whoever creates the agent, and owner rules name agents by id. So that an
 * owner rule written for one agent is not claimed by an editor who creates an agent of that id (after
 * deleting the owner's, or before the owner makes it), only owners may create an agent whose id an owner
 * rule that can grant something (`allow` or `ask`, scoped with `agent`) names. Deny rules name ids freely:
 * being denied more is never a gain. An existing agent stays editable by editors; every change is
 * recorded with who made it (see `changeOf`).
 */
export async function refuseClaimedId(policy: PermissionPolicy, agentId: string, request: Request): Promise<void> {
  if (principalOf(request)?.role === "owner") return;
  const claimed = policy.rules.flatMap((rule, index) => (rule.action !== "deny" && namesAgent(rule, agentId) ? [index] : []));
  const first = claimed[0];
  if (first === undefined) return;
  throw new ApiError(
    "FORBIDDEN",
    `Only an owner may create an agent (or a scene agent instance) with the id "${agentId}": the owner's permission rule ${first + 1} (Settings → Permissions) grants "${policy.rules[first]?.action}" to agents named "${policy.rules[first]?.agent}", and an owner's grant goes to the agent the owner meant, not to whoever takes its id. Pick another id, or ask an owner to create this agent.`,
    { reason: "AGENT_ID_RESERVED", agentId, rules: claimed },
  );
}

/** A document a write elsewhere (the Builder's apply) is about to store; null: deleted. */
export type GuardedWrite = { type: "agent"; value: AgentProfile | null } | { type: "scene"; value: Scene | null } | { type: "workflow" | "asset" };

/**
 * The same guard for writes that do not go through the agent and scene routes (the Builder's apply, on
 * the user's click): each agent it creates, and each scene instance id it adds, as `refuseClaimedId`.
 */
export async function refuseClaimedIdsIn(storage: AgentsStorage, policy: PermissionPolicy, writes: readonly GuardedWrite[], request: Request): Promise<void> {
  for (const write of writes) {
    if (write.type === "agent" && write.value && !(await storage.agents.get(write.value.id))) await refuseClaimedId(policy, write.value.id, request);
    if (write.type === "scene" && write.value) {
      const existing = new Set((await storage.scenes.get(write.value.id))?.document.agents.map((a) => a.instanceId) ?? []);
      for (const agent of write.value.agents) if (!existing.has(agent.instanceId)) await refuseClaimedId(policy, agent.instanceId, request);
    }
  }
}

/** The profile's top-level fields whose values differ (all of them for a creation). */
function changedFields(before: AgentProfile | undefined, after: AgentProfile | undefined): string[] {
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  keys.delete("revision");
  const differ = (key: string) => JSON.stringify((before as Record<string, unknown> | undefined)?.[key]) !== JSON.stringify((after as Record<string, unknown> | undefined)?.[key]);
  return [...keys].filter((key) => before === undefined || after === undefined || differ(key)).sort();
}

/** The change record of one write through the agent routes: who (the request's principal), when, and what the profile's tools, skills and rules became. */
export function changeOf(write: DocumentWrite<AgentProfile>, request: Request): AgentChange {
  const principal = principalOf(request);
  const before = write.kind === "created" ? undefined : write.before;
  const after = write.kind === "deleted" ? undefined : write.after;
  const profile = after ?? before;
  return {
    agentId: profile?.id ?? "",
    kind: write.kind,
    revision: after?.revision ?? null,
    at: Date.now(),
    by: principal?.userId ?? null,
    byName: principal?.username ?? null,
    role: principal?.role ?? null,
    fields: write.kind === "deleted" ? [] : changedFields(before, after),
    tools: profile?.tools ?? [],
    skills: profile?.skills ?? [],
    permissions: profile?.permissions ?? [],
  };
}
