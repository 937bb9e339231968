import { WORKFLOW_INPUT_TYPE, WORKFLOW_OUTPUT_TYPE, workflowInterface, type NodeSpec, type Workflow, type WorkflowNode } from "@weft/types";
import { IdAllocator, nodeIdBase } from "./ids.ts";
import type { Position } from "./commands.ts";

/**
 * A new node of `spec` at `position`. Literal inputs stay empty (the engine applies the spec's
 * defaults); required config fields get their defaults; interface nodes get a free port name.
 */
export function createNode(doc: Workflow, spec: NodeSpec, position: Position, ids: IdAllocator = IdAllocator.forWorkflow(doc)): WorkflowNode {
  const config: Record<string, unknown> = {};
  for (const field of spec.config) if (field.required && field.default !== undefined) config[field.id] = field.default;
  if (spec.type === WORKFLOW_INPUT_TYPE || spec.type === WORKFLOW_OUTPUT_TYPE) {
    const iface = workflowInterface(doc);
    const names = new IdAllocator((spec.type === WORKFLOW_INPUT_TYPE ? iface.inputs : iface.outputs).map((p) => p.name));
    config.name = names.next(spec.type === WORKFLOW_INPUT_TYPE ? "input" : "output");
    config.portType ??= "string";
  }
  return { id: ids.next(nodeIdBase(spec.type)), type: spec.type, position: { x: Math.round(position.x), y: Math.round(position.y) }, config, inputs: {} };
}
