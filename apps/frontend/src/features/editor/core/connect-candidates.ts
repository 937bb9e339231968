import type { Workflow, WorkflowNode } from "@weft/types";
import { checkConnection, type ConnectionRequest } from "../../../shared/graph/connection.ts";
import { nodePorts, portLabel, type SpecLookup } from "../../../shared/graph/ports.ts";

/** One edge the keyboard's "Connect…" offers. */
export interface ConnectCandidate {
  request: Required<ConnectionRequest>;
  /** "Text of Constant text (const_1) → Text of Trim / change case (trim_1)". */
  label: string;
  /** The direction seen from the node the list is for. */
  direction: "out" | "in";
  /** Set when the input already has its one edge: connecting replaces that edge. */
  replaces?: string;
}

const nodeName = (node: WorkflowNode, specs: SpecLookup) => `${node.label || specs(node.type)?.title || node.type} (${node.id})`;

/**
 * Every edge checkConnection allows between `nodeId` and the other nodes: from its outputs to their
 * inputs first, then from their outputs to its inputs, in document order. Edges already drawn are
 * refused by the check, so they are not offered again.
 */
export function connectCandidates(doc: Workflow, specs: SpecLookup, nodeId: string): ConnectCandidate[] {
  const self = doc.nodes.find((n) => n.id === nodeId);
  if (!self) return [];
  const selfPorts = nodePorts(self, specs(self.type));
  const found: ConnectCandidate[] = [];
  const offer = (direction: "out" | "in", from: WorkflowNode, to: WorkflowNode) => {
    const outputs = direction === "out" ? selfPorts.outputs : nodePorts(from, specs(from.type)).outputs;
    const inputs = direction === "in" ? selfPorts.inputs : nodePorts(to, specs(to.type)).inputs;
    for (const out of outputs) {
      for (const input of inputs) {
        const request = { source: from.id, sourceHandle: out.id, target: to.id, targetHandle: input.id };
        const check = checkConnection(doc, specs, request);
        if (!check.ok) continue;
        const label = `${portLabel(out)} of ${nodeName(from, specs)} → ${portLabel(input)} of ${nodeName(to, specs)}`;
        found.push({ request, label, direction, ...(check.replaces ? { replaces: check.replaces } : {}) });
      }
    }
  };
  for (const other of doc.nodes) if (other.id !== nodeId) offer("out", self, other);
  for (const other of doc.nodes) if (other.id !== nodeId) offer("in", other, self);
  return found;
}
