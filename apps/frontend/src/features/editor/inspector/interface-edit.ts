import { InterfaceNodeConfigSchema, WORKFLOW_INPUT_TYPE, WORKFLOW_OUTPUT_TYPE, workflowInterface, type NodeSpec, type PortType, type Workflow } from "@weft/types";
import type { GraphCommand, Position } from "../../../shared/graph/commands.ts";
import { IdAllocator } from "../../../shared/graph/ids.ts";
import { createNode } from "../../../shared/graph/node-factory.ts";

export type InterfaceSide = "inputs" | "outputs";

export interface InterfacePortDraft {
  name: string;
  portType: PortType;
  required: boolean;
  description: string;
  default?: unknown;
}

/** Why a port definition cannot be used, or null. Names are identifiers, unique on their side. */
export function interfacePortProblem(doc: Workflow, side: InterfaceSide, nodeId: string | null, draft: InterfacePortDraft): string | null {
  const parsed = InterfaceNodeConfigSchema.safeParse(draft);
  if (!parsed.success) return `"${draft.name}": ${parsed.error.issues[0].message}`;
  const clash = workflowInterface(doc)[side].find((p) => p.name === draft.name && p.nodeId !== nodeId);
  if (clash) return `another ${side === "inputs" ? "input" : "output"} is already called "${draft.name}" (node ${clash.nodeId})`;
  return null;
}

/**
 * Adds an interface port: a new `core:workflow-input` / `-output` node placed left (inputs) or
 * right (outputs) of the graph, or at `whereEmpty` in an empty workflow.
 */
export function addInterfacePortCommand(doc: Workflow, side: InterfaceSide, spec: NodeSpec, whereEmpty: Position = { x: 0, y: 0 }): { command: GraphCommand; nodeId: string } {
  const xs = doc.nodes.map((n) => n.position.x);
  const ys = doc.nodes.map((n) => n.position.y);
  const count = workflowInterface(doc)[side].length;
  const x = !xs.length ? whereEmpty.x + (side === "inputs" ? 0 : 320) : side === "inputs" ? Math.min(...xs) - 320 : Math.max(...xs) + 320;
  const y = (ys.length ? Math.min(...ys) : whereEmpty.y) + count * 140;
  const node = createNode(doc, spec, { x, y }, IdAllocator.forWorkflow(doc));
  return { command: { kind: "add", elements: { nodes: [node], edges: [], annotations: [] } }, nodeId: node.id };
}

/** Changes an interface port (its node's config). */
export function updateInterfacePortCommand(doc: Workflow, nodeId: string, draft: InterfacePortDraft): GraphCommand | null {
  const node = doc.nodes.find((n) => n.id === nodeId && (n.type === WORKFLOW_INPUT_TYPE || n.type === WORKFLOW_OUTPUT_TYPE));
  if (!node) return null;
  const config: Record<string, unknown> = { ...node.config, name: draft.name, portType: draft.portType, required: draft.required, description: draft.description };
  if (draft.default === undefined) delete config.default;
  else config.default = draft.default;
  return { kind: "update-node", id: nodeId, patch: { config } };
}
