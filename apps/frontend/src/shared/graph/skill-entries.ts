import { SKILL_NODE_TYPE, type NodeSpec, type Workflow, type WorkflowNode, type WorkflowSummary } from "@weft/types";
import type { Position } from "./commands.ts";
import { createNode } from "./node-factory.ts";
import { interfacePorts } from "./skill-node.ts";

/**
 * Each saved skill is offered in the palette and quick-add as an entry of its own, under a type
 * `skill:<workflow id>` that only the editor uses: adding it makes a `core:skill` node calling it.
 */
const PREFIX = "skill:";
export const skillEntryType = (workflowId: string): string => PREFIX + workflowId;
export const skillIdOfEntry = (type: string): string | null => (type.startsWith(PREFIX) ? type.slice(PREFIX.length) : null);

export const SKILLS_CATEGORY = "skills";

/**
 * Whether a listed workflow is badged "skill": one with an interface, except the shipped examples, which
 * all have one to be run with inputs; among them only those made to be called (tagged "skill") are.
 */
export const badgedSkill = (summary: Pick<WorkflowSummary, "isSkill" | "origin" | "tags">): boolean => summary.isSkill && (summary.origin !== "example" || summary.tags.includes("skill"));

/** One line for the interface, so a skill can be told apart (and found) by what it takes and gives. */
export function interfaceLine(summary: Pick<WorkflowSummary, "interface">): string {
  const side = (ports: { name: string; type: string }[]) => ports.map((p) => `${p.name} (${p.type})`).join(", ") || "nothing";
  return `takes ${side(summary.interface.inputs)} → gives ${side(summary.interface.outputs)}`;
}

/** A palette entry per skill (not `exceptId`, the workflow being edited: it would call itself). */
export function skillSpecs(base: NodeSpec | undefined, summaries: readonly WorkflowSummary[], exceptId?: string): NodeSpec[] {
  if (!base) return [];
  return summaries
    .filter((s) => s.isSkill && s.id !== exceptId)
    .map((s) => ({
      ...base,
      type: skillEntryType(s.id),
      title: s.name,
      category: SKILLS_CATEGORY,
      description: [s.description, `Skill ${s.id}: ${interfaceLine(s)}.`].filter(Boolean).join("\n"),
      ...interfacePorts(s.interface),
      config: base.config.filter((f) => f.id !== "workflowId"),
    }));
}

/** A `core:skill` node already pointed at `summary`, with its interface as ports. */
export function createSkillNode(doc: Workflow, base: NodeSpec, summary: WorkflowSummary, position: Position): WorkflowNode {
  const node = createNode(doc, base, position);
  return { ...node, config: { ...node.config, workflowId: summary.id }, ports: interfacePorts(summary.interface) };
}

/** The skill a node calls, when it is a `core:skill` node pointed at one. */
export const calledSkillId = (node: WorkflowNode): string | null =>
  node.type === SKILL_NODE_TYPE && typeof node.config.workflowId === "string" && node.config.workflowId ? node.config.workflowId : null;
