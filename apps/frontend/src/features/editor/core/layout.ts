import dagre from "@dagrejs/dagre";
import type { Workflow } from "@weft/types";
import type { GraphCommand, Position } from "../../../shared/graph/commands.ts";
import { DEFAULT_NODE_SIZE, type Size } from "../../../shared/graph/node-size.ts";

/** The shape a laid-out graph is wrapped towards: a screen's, a little wider than tall. */
const TARGET_ASPECT = 1.6;
/** Space between two bands of a wrapped layout. */
const BAND_GAP = 120;
/** A row up to this wide (flow px; a chain of ~8 nodes) reads fine on a screen: it stays one row, never a 2×2 grid. */
const MAX_ROW = 2400;

interface Placed {
  id: string;
  x: number;
  y: number;
}

/**
 * A layout far wider than tall and than a screen (a long chain is one row) cut into bands stacked top to bottom, as
 * text wraps: each band reads left to right and starts where the one above ended, so the whole graph
 * fits the screen at a zoom where it can be read.
 */
export function wrapBands(placed: Placed[], sizeOf: (id: string) => Size): Placed[] {
  const right = (p: Placed) => p.x + sizeOf(p.id).width;
  const bottom = (p: Placed) => p.y + sizeOf(p.id).height;
  const minX = Math.min(...placed.map((p) => p.x));
  const minY = Math.min(...placed.map((p) => p.y));
  const width = Math.max(...placed.map(right)) - minX;
  const height = Math.max(...placed.map(bottom)) - minY;
  if (width <= MAX_ROW) return placed;
  // Bands no shorter than half such a row, so a wrapped chain still reads as runs of several nodes.
  const bands = Math.min(Math.round(Math.sqrt(width / (height * TARGET_ASPECT))), Math.ceil(width / (MAX_ROW / 2)));
  if (bands <= 1) return placed;
  const bandWidth = width / bands;
  const bandOf = (p: Placed) => Math.min(bands - 1, Math.floor((p.x - minX) / bandWidth));
  const bandLeft = new Array<number>(bands).fill(Infinity);
  for (const p of placed) bandLeft[bandOf(p)] = Math.min(bandLeft[bandOf(p)], p.x);
  return placed.map((p) => {
    const band = bandOf(p);
    return { id: p.id, x: p.x - bandLeft[band] + minX, y: p.y + band * (height + BAND_GAP) };
  });
}

/**
 * Left-to-right layered layout (dagre) of the given nodes (all when `only` is empty), a long one
 * wrapped into bands, keeping the top-left corner of their current bounding box so the graph does
 * not jump away from the view.
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
  const placed = wrapBands(
    nodes.map((n) => {
      const p = g.node(n.id);
      return { id: n.id, x: p.x - p.width / 2, y: p.y - p.height / 2 };
    }),
    (id) => sizes(id) ?? DEFAULT_NODE_SIZE,
  );
  const laidOrigin = { x: Math.min(...placed.map((p) => p.x)), y: Math.min(...placed.map((p) => p.y)) };
  const moves: Record<string, Position> = {};
  for (const p of placed) moves[p.id] = { x: Math.round(p.x - laidOrigin.x + origin.x), y: Math.round(p.y - laidOrigin.y + origin.y) };
  return { kind: "move", nodes: moves, annotations: {} };
}
