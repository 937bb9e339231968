import { portTypeMismatch, type PortType, type Workflow } from "@weft/types";
import type { GraphCommand } from "./commands.ts";
import { edgeId } from "./ids.ts";
import { findPort, nodePorts, portLabel, type SpecLookup } from "./ports.ts";

export interface ConnectionRequest {
  source: string;
  sourceHandle?: string | null;
  target: string;
  targetHandle?: string | null;
}

/** Whether an edge may be drawn; when the input already has its one edge, `replaces` names the edge it will take the place of. */
export type ConnectionCheck = { ok: true; replaces?: string } | { ok: false; reason: string; mismatch?: { from: PortType; to: PortType } };

const refuse = (reason: string): ConnectionCheck => ({ ok: false, reason });
export const withArticle = (word: string): string => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);

/** The editor's rule for a new edge: ports exist, types fit (`portTypeMismatch`), no self loop, no cycle, no duplicate. */
export function checkConnection(doc: Workflow, specs: SpecLookup, request: ConnectionRequest): ConnectionCheck {
  const { source, target } = request;
  if (source === target) return refuse("a node cannot feed itself");
  const sourceNode = doc.nodes.find((n) => n.id === source);
  const targetNode = doc.nodes.find((n) => n.id === target);
  if (!sourceNode) return refuse(`node "${source}" is not in this workflow`);
  if (!targetNode) return refuse(`node "${target}" is not in this workflow`);
  const out = findPort(nodePorts(sourceNode, specs(sourceNode.type)).outputs, request.sourceHandle);
  if (!out) return refuse(`"${source}" has no output "${request.sourceHandle ?? ""}"`);
  const input = findPort(nodePorts(targetNode, specs(targetNode.type)).inputs, request.targetHandle);
  if (!input) return refuse(`"${target}" has no input "${request.targetHandle ?? ""}"`);
  if (portTypeMismatch(out.type, input.type)) {
    return {
      ok: false,
      reason: `${withArticle(out.type)} output cannot feed ${withArticle(input.type)} input (${portLabel(out)} → ${portLabel(input)})`,
      mismatch: { from: out.type, to: input.type },
    };
  }
  const existing = doc.edges.filter((e) => e.target === target && e.targetHandle === input.id);
  if (existing.some((e) => e.source === source && e.sourceHandle === out.id)) return refuse("these ports are already connected");
  const loop = pathBetween(doc, target, source);
  if (loop) return refuse(`this edge would make a cycle: ${[...loop, target].join(" → ")}`);
  if (!input.multi && existing.length > 0) return { ok: true, replaces: existing[0].id };
  return { ok: true };
}

/** A path of node ids from `from` to `to` following edges, or null when there is none. */
function pathBetween(doc: Workflow, from: string, to: string): string[] | null {
  const outgoing = new Map<string, string[]>();
  for (const e of doc.edges) {
    const list = outgoing.get(e.source);
    if (list) list.push(e.target);
    else outgoing.set(e.source, [e.target]);
  }
  const previous = new Map<string, string>();
  const queue = [from];
  const seen = new Set([from]);
  while (queue.length) {
    const id = queue.shift() as string;
    if (id === to) {
      const path = [to];
      let at = to;
      while (at !== from) {
        at = previous.get(at) as string;
        path.unshift(at);
      }
      return path;
    }
    for (const next of outgoing.get(id) ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      previous.set(next, id);
      queue.push(next);
    }
  }
  return null;
}

/** The edit that draws an accepted connection (replacing the input's previous edge when it takes only one). */
export function connectCommand(request: ConnectionRequest, check: Extract<ConnectionCheck, { ok: true }>): GraphCommand {
  const sourceHandle = request.sourceHandle ?? "";
  const targetHandle = request.targetHandle ?? "";
  const edge = { id: edgeId(request.source, sourceHandle, request.target, targetHandle), source: request.source, sourceHandle, target: request.target, targetHandle };
  const add: GraphCommand = { kind: "add", elements: { nodes: [], edges: [edge], annotations: [] } };
  if (!check.replaces) return add;
  return { kind: "batch", commands: [{ kind: "remove", ids: { nodes: [], edges: [check.replaces], annotations: [] } }, add] };
}

/** The edges feeding one input, in the order the node receives them (a `multi` input gets them as an array in this order). */
export function incomingEdges(doc: Workflow, nodeId: string, portId: string) {
  return doc.edges.filter((e) => e.target === nodeId && e.targetHandle === portId);
}

/** Moves an edge of a multi input one place earlier or later among the edges of that input. */
export function reorderEdgeCommand(doc: Workflow, id: string, direction: -1 | 1): GraphCommand | null {
  const edge = doc.edges.find((e) => e.id === id);
  if (!edge) return null;
  const siblings = incomingEdges(doc, edge.target, edge.targetHandle);
  const at = siblings.indexOf(edge);
  const swapWith = siblings[at + direction];
  if (!swapWith) return null;
  const remove: GraphCommand = { kind: "remove", ids: { nodes: [], edges: [id], annotations: [] } };
  const withoutEdge = doc.edges.filter((e) => e.id !== id);
  const targetIndex = direction === -1 ? withoutEdge.indexOf(swapWith) : withoutEdge.indexOf(swapWith) + 1;
  return {
    kind: "batch",
    commands: [remove, { kind: "add", elements: { nodes: [], edges: [edge], annotations: [] }, indexes: { nodes: [], edges: [targetIndex], annotations: [] } }],
  };
}
