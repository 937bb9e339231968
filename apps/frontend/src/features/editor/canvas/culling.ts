import type { Workflow, WorkflowNode } from "@weft/types";
import type { Size } from "../../../shared/graph/node-size.ts";
import type { Box, Viewport } from "./viewport.ts";

/**
 * How far past each side of the screen (a share of its size) a large graph's nodes are handed to Vue
 * Flow: a pan reaches them before they are needed, and the set changes only now and then.
 */
export const CULL_MARGIN = 0.5;

/** The part of the flow a canvas of `screen` shows at `viewport`, grown by `margin` of its size on each side. */
export function cullArea(viewport: Viewport, screen: Size, margin = CULL_MARGIN): Box {
  const width = screen.width / viewport.zoom;
  const height = screen.height / viewport.zoom;
  return { x: -viewport.x / viewport.zoom - width * margin, y: -viewport.y / viewport.zoom - height * margin, width: width * (1 + 2 * margin), height: height * (1 + 2 * margin) };
}

const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/**
 * The workflow nodes a large graph gives Vue Flow: those in `area`, both ends of every edge that may
 * cross it (the box spanning its two nodes meets it: Vue Flow draws an edge only with both its nodes),
 * and `pinned` (the selection, a node being shown): Vue Flow keeps their selection and drag state.
 */
export function nodesToShow(doc: Pick<Workflow, "nodes" | "edges">, area: Box, sizeOf: (node: WorkflowNode) => Size, pinned: Iterable<string>): Set<string> {
  const shown = new Set<string>();
  const boxes = new Map<string, Box>();
  for (const n of doc.nodes) {
    const box = { x: n.position.x, y: n.position.y, ...sizeOf(n) };
    boxes.set(n.id, box);
    if (overlaps(box, area)) shown.add(n.id);
  }
  for (const e of doc.edges) {
    if (shown.has(e.source) && shown.has(e.target)) continue;
    const s = boxes.get(e.source);
    const t = boxes.get(e.target);
    if (!s || !t) continue;
    const x = Math.min(s.x, t.x);
    const y = Math.min(s.y, t.y);
    const span = { x, y, width: Math.max(s.x + s.width, t.x + t.width) - x, height: Math.max(s.y + s.height, t.y + t.height) - y };
    if (overlaps(span, area)) shown.add(e.source).add(e.target);
  }
  for (const id of pinned) if (boxes.has(id)) shown.add(id);
  return shown;
}

export const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => a.size === b.size && [...a].every((id) => b.has(id));
