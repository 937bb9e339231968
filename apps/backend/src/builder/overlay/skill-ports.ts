import { SKILL_NODE_TYPE, workflowInterface, type InterfacePort, type PortSpec, type Workflow, type WorkflowNode } from "@weft/types";

function portOf(p: InterfacePort): PortSpec {
  const port: PortSpec = { id: p.name, type: p.type, required: p.required, multi: false, label: p.name };
  if (p.description) port.description = p.description;
  if (p.default !== undefined) port.default = p.default;
  return port;
}

/** The ports a `core:skill` node calling `skill` has: the skill's interface, as the editor writes them. */
export function skillPorts(skill: Pick<Workflow, "nodes">): NonNullable<WorkflowNode["ports"]> {
  const iface = workflowInterface(skill);
  return { inputs: iface.inputs.map(portOf), outputs: iface.outputs.map((p) => ({ ...portOf(p), required: false })) };
}

export function skillWorkflowId(node: WorkflowNode): string | undefined {
  if (node.type !== SKILL_NODE_TYPE) return undefined;
  const id = node.config.workflowId;
  return typeof id === "string" && id.trim() !== "" ? id.trim() : undefined;
}

/**
 * Fills in the ports of `core:skill` nodes that have none, from the effective skill workflow, so
 * the model can stage a skill call by its workflow id alone (the engine checks edges against them).
 */
export async function fillSkillPorts(workflow: Workflow, skillOf: (id: string) => Promise<Workflow | undefined>): Promise<Workflow> {
  let changed = false;
  const nodes: WorkflowNode[] = [];
  for (const node of workflow.nodes) {
    const id = skillWorkflowId(node);
    const skill = id !== undefined && node.ports === undefined ? await skillOf(id) : undefined;
    if (skill) {
      nodes.push({ ...node, ports: skillPorts(skill) });
      changed = true;
    } else {
      nodes.push(node);
    }
  }
  return changed ? { ...workflow, nodes } : workflow;
}
