import { jsonEqual, type ObjectLocator, type Workflow } from "@weft/types";
import { describeObject } from "../domain/target.ts";
import { overlayKey } from "../overlay/effective-view.ts";
import { skillPorts, skillWorkflowId } from "../overlay/skill-ports.ts";
import { allReferences, exists, type Reference } from "../references/references.ts";
import { findings, type Findings, type ValidationContext } from "./findings.ts";

const MISSING_CODE: Record<ObjectLocator["type"], string> = {
  workflow: "AI_REF_WORKFLOW_NOT_FOUND",
  agent: "AI_REF_AGENT_NOT_FOUND",
  scene: "AI_REF_SCENE_NOT_FOUND",
  asset: "AI_REF_ASSET_NOT_FOUND",
};

const portsKey = (ports: { id: string; type: string; required: boolean }[]) => ports.map(({ id, type, required }) => ({ id, type, required }));

/** A chain of skill calls from `start` back to itself, if there is one. */
function skillCycle(start: string, calls: Map<string, string[]>): string[] | undefined {
  const seen = new Set<string>();
  const walk = (id: string, path: string[]): string[] | undefined => {
    for (const next of calls.get(id) ?? []) {
      if (next === start) return [...path, next];
      if (seen.has(next)) continue;
      seen.add(next);
      const found = walk(next, [...path, next]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(start, [start]);
}

/**
 * Stage 3: references point at things that exist in the effective view — skills called by
 * `core:skill` nodes, agents' deliberation workflow, skills, tools (node types) and LLM profile,
 * scenes' agent profiles — and nothing still used elsewhere is deleted. Skill calls must not loop.
 */
export async function referenceStage(ctx: ValidationContext): Promise<Findings> {
  const out = findings();
  const refs = await allReferences(ctx.view);
  const changed = new Set(ctx.entries.map((e) => overlayKey(e.type, e.key)));
  const fromChanged = (r: Reference) => changed.has(overlayKey(r.from.type, r.from.id));

  for (const ref of refs.filter(fromChanged)) {
    if (await exists(ctx.view, ref.to)) continue;
    const issue = {
      code: MISSING_CODE[ref.to.type],
      stage: "references" as const,
      message: `${describeObject(ref.from)} refers to ${describeObject(ref.to)} (${ref.field}), which does not exist`,
      hint: ref.to.type === "asset" ? "create the asset with an asset.put operation, or correct the path" : `use an existing id (builder_objects_list), or stage the ${ref.to.type} too`,
      objectType: ref.from.type,
      objectKey: ref.from.id,
      path: ref.field,
      ...(ref.nodeId ? { nodeId: ref.nodeId } : {}),
    };
    // A path written in free text may be an example rather than a link: a warning, not a refusal.
    if (ref.to.type === "asset") out.warnings.push(issue);
    else out.errors.push(issue);
  }

  for (const entry of ctx.entries) {
    if (entry.value !== null) continue;
    const users = refs.filter((r) => r.to.type === entry.type && r.to.id === entry.key && !(r.from.type === entry.type && r.from.id === entry.key));
    for (const user of users) {
      out.errors.push({
        code: "AI_REF_BROKEN_BY_DELETE",
        stage: "references",
        message: `${describeObject({ type: entry.type, id: entry.key })} is deleted, but ${describeObject(user.from)} still refers to it (${user.field})`,
        hint: `change ${describeObject(user.from)} in the same change set, or keep ${entry.key}`,
        objectType: entry.type,
        objectKey: entry.key,
      });
    }
  }

  const workflows = await ctx.view.all("workflow");
  const byId = new Map(workflows.map((w) => [w.id, w]));
  const calls = new Map(workflows.map((w) => [w.id, w.nodes.flatMap((n) => skillWorkflowId(n) ?? [])]));
  for (const entry of ctx.entries) {
    if (entry.type === "workflow" && entry.value !== null) checkSkills(entry.value, byId, calls, out);
    if (entry.type === "agent" && entry.value !== null) {
      const agent = entry.value;
      agent.tools.forEach((type, i) => {
        if (ctx.catalog.get(type)) return;
        const near = ctx.catalog.suggest(type);
        out.errors.push({
          code: "AI_REF_NODE_TYPE_UNKNOWN",
          stage: "references",
          message: `agent profile "${agent.id}" lists the unknown tool (node type) "${type}"`,
          hint: near.length ? `did you mean ${near.map((n) => `"${n}"`).join(" or ")}? (builder_catalog_list lists node types)` : "use a node type from builder_catalog_list",
          objectType: "agent",
          objectKey: agent.id,
          path: `tools.${i}`,
        });
      });
      if (agent.llmProfileId !== undefined && !(await ctx.llmProfileExists(agent.llmProfileId))) {
        out.errors.push({
          code: "AI_REF_LLM_PROFILE_NOT_FOUND",
          stage: "references",
          message: `agent profile "${agent.id}" uses the LLM profile "${agent.llmProfileId}", which does not exist`,
          hint: "leave llmProfileId out to use the default profile, or name an existing one",
          objectType: "agent",
          objectKey: agent.id,
          path: "llmProfileId",
        });
      }
    }
  }
  return out;
}

function checkSkills(wf: Workflow, byId: Map<string, Workflow>, calls: Map<string, string[]>, out: Findings): void {
  const cycle = skillCycle(wf.id, calls);
  if (cycle) {
    out.errors.push({
      code: "AI_REF_SKILL_RECURSION",
      stage: "references",
      message: `skill calls loop: ${cycle.map((id) => `"${id}"`).join(" → ")}`,
      hint: "a workflow must not call itself as a skill, directly or through other skills; remove one core:skill node of the loop",
      objectType: "workflow",
      objectKey: wf.id,
      nodeIds: cycle,
    });
  }
  for (const node of wf.nodes) {
    const skillId = skillWorkflowId(node);
    const skill = skillId === undefined ? undefined : byId.get(skillId);
    if (!skill || !node.ports) continue;
    const expected = skillPorts(skill);
    if (jsonEqual(portsKey(node.ports.inputs), portsKey(expected.inputs)) && jsonEqual(portsKey(node.ports.outputs), portsKey(expected.outputs))) continue;
    out.warnings.push({
      code: "AI_SKILL_PORTS_STALE",
      stage: "references",
      message: `node "${node.id}" has ports that differ from the interface of the skill "${skill.id}"`,
      hint: 'stage the node again without "ports": they are then taken from the skill\'s interface',
      objectType: "workflow",
      objectKey: wf.id,
      nodeId: node.id,
    });
  }
}
