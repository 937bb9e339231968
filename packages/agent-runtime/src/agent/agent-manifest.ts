import { isSkill, TOOL_NAMES, type AgentProfile, type NodeCatalog, type PermissionPolicy, type WorkflowSource, messageOf } from "@weft/types";
import { Manifest, skillEntryFromWorkflow, toolEntryFromNodeSpec, type ManifestEntry } from "../action/index.ts";
import { toolNameForms, visibleTools } from "../toolhost/index.ts";
import { ASK_USER_ENTRY } from "./ask-user.ts";
import { agentError, fail, ok, type AgentResult } from "./errors.ts";

export interface AgentManifestSources {
  catalog: NodeCatalog;
  workflows: WorkflowSource;
  /** The tool host's permission rules: tools they deny whatever the target are left out. */
  permissions?: PermissionPolicy;
  /** Whose permissions count (rules may name agents). */
  agentId: string;
}

const HOST_TOOLS: ReadonlySet<string> = new Set(TOOL_NAMES);

/** Whether a node type runs through the tool host (`fs:read` is `fs.read`), so its permissions apply. */
function isHostTool(nodeType: string): boolean {
  return toolNameForms(nodeType).some((form) => HOST_TOOLS.has(form));
}

/**
 * The tools and skills of an agent (seed 004 §7.2): its profile's node types (with their
 * settings), its skill workflows, and the built-in `ask_user`. Every reference must resolve; a
 * tool the permissions deny outright is left out, so the model never sees it.
 */
export async function buildAgentManifest(profile: AgentProfile, sources: AgentManifestSources): Promise<AgentResult<Manifest>> {
  const entries = await resolveAgentEntries(profile, sources);
  return entries.ok ? ok(permittedManifest(entries.value, profile, sources.permissions, sources.agentId)) : entries;
}

/**
 * The manifest an agent gets under `policy`: a host tool is left out when the settings' rules (the
 * ceiling) deny it whatever its target, or when the profile's own rules do (they can only narrow, see
 * decidePermission). Without a policy only the profile's rules count.
 */
export function permittedManifest(entries: readonly ManifestEntry[], profile: AgentProfile, policy: PermissionPolicy | undefined, agentId: string): Manifest {
  const own = profile.permissions ?? [];
  if (!policy && own.length === 0) return Manifest.create(entries);
  const hostTools = profile.tools.filter(isHostTool);
  const underOwner = new Set(policy ? visibleTools(policy, hostTools, { agentId }) : hostTools);
  const visible = new Set(visibleTools(own, hostTools, { agentId, defaultAction: "allow" }).filter((t) => underOwner.has(t)));
  const hidden = new Set(hostTools.filter((t) => !visible.has(t)));
  return Manifest.create(entries.filter((e) => !(e.kind === "tool" && hidden.has(e.id))));
}

/** Every entry the profile names, none hidden yet; fails on the first reference that does not resolve. */
export async function resolveAgentEntries(profile: AgentProfile, sources: Pick<AgentManifestSources, "catalog" | "workflows">): Promise<AgentResult<ManifestEntry[]>> {
  const entries: ManifestEntry[] = [];
  for (const type of profile.tools) {
    const definition = sources.catalog.get(type);
    if (!definition) {
      const near = sources.catalog.suggest(type);
      return fail(
        agentError(
          "UNKNOWN_TOOL_TYPE",
          `Agent "${profile.id}" lists the tool "${type}", which is not a known node type.`,
          near.length > 0 ? `Did you mean ${near.map((n) => `"${n}"`).join(" or ")}? Fix the profile's tools list.` : "Remove it from the profile's tools list, or install the node that provides it.",
          { tool: type, suggestions: near },
        ),
      );
    }
    entries.push(toolEntryFromNodeSpec(definition.spec));
  }
  for (const id of profile.skills) {
    let workflow;
    try {
      workflow = await sources.workflows.getWorkflow(id);
    } catch (error) {
      return fail(
        agentError("WORKFLOW_SOURCE_FAILED", `The skill "${id}" of agent "${profile.id}" could not be loaded: ${messageOf(error)}`, "Fix or remove the workflow file it names.", { skill: id }),
      );
    }
    if (!workflow) {
      return fail(
        agentError(
          "UNKNOWN_SKILL",
          `Agent "${profile.id}" lists the skill "${id}", but there is no workflow with that id.`,
          "Save a workflow with that id, or remove it from the profile's skills list.",
          { skill: id },
        ),
      );
    }
    if (!isSkill(workflow)) {
      return fail(
        agentError(
          "NOT_A_SKILL",
          `The workflow "${id}" has no interface, so agent "${profile.id}" cannot call it as a skill.`,
          "Add core:workflow-input and core:workflow-output nodes to it, or remove it from the profile's skills list.",
          {
            skill: id,
          },
        ),
      );
    }
    entries.push(skillEntryFromWorkflow(workflow));
  }
  entries.push(ASK_USER_ENTRY);
  return ok(entries);
}
