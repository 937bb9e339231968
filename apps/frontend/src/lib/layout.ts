import dagre from "@dagrejs/dagre";
import type { Workflow } from "@weft/types";
import type { GraphCommand, Position } from "./commands.ts";
import { DEFAULT_NODE_SIZE, type Size } from "./node-size.ts";

/**
 * Left-to-right layered layout (dagre) of the given nodes (all when `only` is empty), keeping the
 * top-left corner of their current bounding box so the graph does not jump away from the view.
 */
export function layoutCommand(doc: Workflow, sizes: (id: string) => Size | undefined, only: string[] = []): GraphCommand {
  const ids = new Set(only.length ? only : doc.nodes.map((n) => n.id));
  const nodes = doc.nodes.filter((n) => ids.has(n.id));
  if (nodes.length === 0) return { kind: "move", nodes: {}, annotations: {} };
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "LR", nodesep: 40, ranksep: 90, marginx: 0, marginy: 0 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) {
    const size = sizes(n.id) ?? DEFAULT_NODE_SIZE;
    g.setNode(n.id, { width: size.width, height: size.height });
  }
  for (const e of doc.edges) if (ids.has(e.source) && ids.has(e.target)) g.setEdge(e.source, e.target);
  dagre.layout(g);
  const origin = { x: Math.min(...nodes.map((n) => n.position.x)), y: Math.min(...nodes.map((n) => n.position.y)) };
  const placed = nodes.map((n) => {
    const p = g.node(n.id);
    return { id: n.id, x: p.x - p.width / 2, y: p.y - p.height / 2 };
  });
  const laidOrigin = { x: Math.min(...placed.map((p) => p.x)), y: Math.min(...placed.map((p) => p.y)) };
  const moves: Record<string, Position> = {};
  for (const p of placed) moves[p.id] = { x: Math.round(p.x - laidOrigin.x + origin.x), y: Math.round(p.y - laidOrigin.y + origin.y) };
  return { kind: "move", nodes: moves, annotations: {} };
}
