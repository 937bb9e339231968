import { SKILL_NODE_TYPE, workflowInterface, type PortSpec, type Workflow, type WorkflowInterface, type WorkflowNode } from "@weft/types";
import type { GraphCommand } from "./commands.ts";

/** The ports a `core:skill` node shows for a workflow interface: one input per interface input, one output per interface output. */
export function interfacePorts(iface: WorkflowInterface): { inputs: PortSpec[]; outputs: PortSpec[] } {
  const toPort = (p: WorkflowInterface["inputs"][number], input: boolean): PortSpec => ({
    id: p.name,
    type: p.type,
    required: input ? p.required : false,
    multi: false,
    ...(p.description ? { description: p.description } : {}),
    ...(input && p.default !== undefined ? { default: p.default } : {}),
  });
  return { inputs: iface.inputs.map((p) => toPort(p, true)), outputs: iface.outputs.map((p) => toPort(p, false)) };
}

/**
 * Points a `core:skill` node at a workflow: sets `config.workflowId` and `ports` to that workflow's
 * interface, and drops edges into or out of ports the new interface no longer has.
 */
export function setSkillCommand(doc: Workflow, node: WorkflowNode, skill: Pick<Workflow, "id" | "nodes">): GraphCommand {
  const ports = interfacePorts(workflowInterface(skill));
  const inputIds = new Set(ports.inputs.map((p) => p.id));
  const outputIds = new Set(ports.outputs.map((p) => p.id));
  const stale = doc.edges.filter((e) => (e.target === node.id && !inputIds.has(e.targetHandle)) || (e.source === node.id && !outputIds.has(e.sourceHandle))).map((e) => e.id);
  const literals = Object.fromEntries(Object.entries(node.inputs).filter(([k]) => inputIds.has(k)));
  return {
    kind: "batch",
    commands: [
      { kind: "remove", ids: { nodes: [], edges: stale, annotations: [] } },
      { kind: "update-node", id: node.id, patch: { config: { ...node.config, workflowId: skill.id }, ports, inputs: literals } },
    ],
  };
}

export const isSkillNode = (node: WorkflowNode): boolean => node.type === SKILL_NODE_TYPE;
