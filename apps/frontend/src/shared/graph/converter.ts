import { portTypeMismatch, type NodeSpec, type PortType, type Workflow } from "@weft/types";
import type { GraphCommand } from "./commands.ts";
import { edgeId, IdAllocator } from "./ids.ts";
import { createNode } from "./node-factory.ts";

/** Categories whose nodes only reshape a value (no files, network, model or world state touched). */
const PURE_CATEGORIES = new Set(["data", "text", "logic", "math", "messages"]);

/**
 * The node to put between an output of type `from` and an input of type `to` that refuse each
 * other: its first input takes `from` and one of its outputs gives `to`; exact types win, then `any`, and fewer inputs over more (e.g. Split text for string → array).
 */
export function findConverter(specs: readonly NodeSpec[], from: PortType, to: PortType): { spec: NodeSpec; input: string; output: string } | null {
  let best: { spec: NodeSpec; input: string; output: string; score: number } | null = null;
  for (const spec of specs) {
    const input = spec.inputs[0];
    if (!PURE_CATEGORIES.has(spec.category) || !input || portTypeMismatch(from, input.type) !== null) continue;
    const output = spec.outputs.find((p) => p.type === to) ?? spec.outputs.find((p) => portTypeMismatch(p.type, to) === null && p.type !== "any" && p.type !== "json");
    if (!output) continue;
    // A generic `any` input (Join text's items) suits better than a `json` one (To JSON text).
    const score = (input.type === from ? 4 : input.type === "any" ? 1 : 0) + (output.type === to ? 4 : 0) - spec.inputs.filter((p) => p.required).length;
    if (!best || score > best.score) best = { spec, input: input.id, output: output.id, score };
  }
  return best && { spec: best.spec, input: best.input, output: best.output };
}

export interface Link {
  source: string;
  sourceHandle: string;
  target: string;
  targetHandle: string;
}

/** Puts a converter node halfway between the two nodes of `link`, wired through (replacing `replaceEdge` when the edge was drawn). */
export function insertConverterCommand(doc: Workflow, converter: { spec: NodeSpec; input: string; output: string }, link: Link, replaceEdge?: string): { command: GraphCommand; nodeId: string } {
  const at = (id: string) => doc.nodes.find((n) => n.id === id)?.position ?? { x: 0, y: 0 };
  const a = at(link.source);
  const b = at(link.target);
  const node = createNode(doc, converter.spec, { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 + 120 }, IdAllocator.forWorkflow(doc));
  const edges = [
    { id: edgeId(link.source, link.sourceHandle, node.id, converter.input), source: link.source, sourceHandle: link.sourceHandle, target: node.id, targetHandle: converter.input },
    { id: edgeId(node.id, converter.output, link.target, link.targetHandle), source: node.id, sourceHandle: converter.output, target: link.target, targetHandle: link.targetHandle },
  ];
  const commands: GraphCommand[] = [];
  if (replaceEdge) commands.push({ kind: "remove", ids: { nodes: [], edges: [replaceEdge], annotations: [] } });
  commands.push({ kind: "add", elements: { nodes: [node], edges, annotations: [] } });
  return { command: { kind: "batch", commands }, nodeId: node.id };
}
