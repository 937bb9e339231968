import type { Workflow } from "@weft/types";
import type { Size } from "../../../shared/graph/node-size.ts";
import { LARGE_GRAPH, type Viewport } from "./viewport.ts";

/**
 * Below this zoom a large graph is drawn as an overview on one canvas: its titles would be a few
 * pixels high, and mounting thousands of node and edge components is what made fit-to-view slow.
 */
export const OVERVIEW_ZOOM = 0.2;

/** Whether to draw the overview; graphs up to LARGE_GRAPH nodes stay components at every zoom (cheap enough, and editable). */
export const isOverview = (nodeCount: number, zoom: number): boolean => nodeCount > LARGE_GRAPH && zoom < OVERVIEW_ZOOM;

export interface OverviewColors {
  edge: string;
  idle: string;
  selected: string;
  /** Fill by run status; a status without one is drawn idle. */
  status: (nodeId: string) => string | undefined;
}

/**
 * Draws the graph as boxes and straight edges, grouped by colour so the whole graph takes one path
 * per colour (a few canvas calls, whatever its size). Returns how many nodes it drew.
 */
export function drawOverview(
  g: CanvasRenderingContext2D,
  doc: Pick<Workflow, "nodes" | "edges">,
  sizeOf: (id: string) => Size,
  viewport: Viewport,
  screen: Size,
  colors: OverviewColors,
  selected: ReadonlySet<string>,
): number {
  const { x: vx, y: vy, zoom } = viewport;
  g.clearRect(0, 0, screen.width, screen.height);
  const boxes = new Map<string, { x: number; y: number; w: number; h: number }>();
  for (const n of doc.nodes) {
    const size = sizeOf(n.id);
    boxes.set(n.id, { x: n.position.x * zoom + vx, y: n.position.y * zoom + vy, w: Math.max(1, size.width * zoom), h: Math.max(1, size.height * zoom) });
  }
  g.beginPath();
  for (const e of doc.edges) {
    const s = boxes.get(e.source);
    const t = boxes.get(e.target);
    if (!s || !t) continue;
    g.moveTo(s.x + s.w, s.y + s.h / 2);
    g.lineTo(t.x, t.y + t.h / 2);
  }
  g.strokeStyle = colors.edge;
  g.lineWidth = 1;
  g.stroke();
  const byColor = new Map<string, string[]>();
  for (const n of doc.nodes) {
    const fill = selected.has(n.id) ? colors.selected : (colors.status(n.id) ?? colors.idle);
    let ids = byColor.get(fill);
    if (!ids) byColor.set(fill, (ids = []));
    ids.push(n.id);
  }
  for (const [fill, ids] of byColor) {
    g.beginPath();
    for (const id of ids) {
      const b = boxes.get(id)!;
      g.rect(b.x, b.y, b.w, b.h);
    }
    g.fillStyle = fill;
    g.fill();
  }
  return doc.nodes.length;
}
