import type { Workflow } from "@weft/types";
import { DEFAULT_NODE_SIZE } from "../../../shared/graph/node-size.ts";

export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface FitOptions {
  padding?: number;
  minZoom?: number;
  maxZoom?: number;
  /** A panel in the canvas's bottom-right corner (the minimap), in screen pixels, that must not hide a node. */
  cover?: { width: number; height: number } | null;
}

/** The parts of a canvas of `size` that `cover` leaves whole: the strip beside it and the strip above it. */
function clearAreas(size: { width: number; height: number }, cover: FitOptions["cover"]): Box[] {
  const whole = { x: 0, y: 0, ...size };
  if (!cover || cover.width <= 0 || cover.height <= 0) return [whole];
  return [
    { x: 0, y: 0, width: Math.max(1, size.width - cover.width), height: size.height },
    { x: 0, y: 0, width: size.width, height: Math.max(1, size.height - cover.height) },
  ];
}

/**
 * The viewport that shows every box in a canvas of `size`, centred; with a `cover`, in the strip beside
 * it or above it, whichever shows the boxes larger.
 */
export function framingViewport(boxes: Box[], size: { width: number; height: number }, options: FitOptions = {}): Viewport {
  if (boxes.length === 0 || size.width <= 0 || size.height <= 0) return { x: 0, y: 0, zoom: 1 };
  // One pass, no arrays: a large graph's opening frames every node.
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const b of boxes) {
    minX = Math.min(minX, b.x);
    minY = Math.min(minY, b.y);
    maxX = Math.max(maxX, b.x + b.width);
    maxY = Math.max(maxY, b.y + b.height);
  }
  const padding = options.padding ?? 0.15;
  const zoomIn = (area: Box) =>
    Math.min(options.maxZoom ?? 1, Math.max(options.minZoom ?? 0.05, Math.min((area.width * (1 - padding)) / (maxX - minX), (area.height * (1 - padding)) / (maxY - minY))));
  let best = { area: clearAreas(size, null)[0], zoom: 0 };
  for (const area of clearAreas(size, options.cover)) {
    const zoom = zoomIn(area);
    if (zoom > best.zoom) best = { area, zoom };
  }
  const { area, zoom } = best;
  return { x: area.x + area.width / 2 - ((minX + maxX) / 2) * zoom, y: area.y + area.height / 2 - ((minY + maxY) / 2) * zoom, zoom };
}

/**
 * The viewport that shows every node (estimated at the default node size) in a canvas of `size`,
 * so the first render already has its final zoom: a large graph then starts as light nodes instead
 * of being rendered in full first and again after a fit on measured sizes.
 */
export function fittingViewport(doc: Pick<Workflow, "nodes" | "annotations">, size: { width: number; height: number }, options: FitOptions = {}): Viewport {
  const boxes = [
    ...doc.nodes.map((n) => ({ x: n.position.x, y: n.position.y, ...DEFAULT_NODE_SIZE })),
    ...doc.annotations.map((a) => ({ x: a.position.x, y: a.position.y, width: a.size?.width ?? 200, height: a.size?.height ?? 80 })),
  ];
  return framingViewport(boxes, size, options);
}

/** Past this many nodes, a workflow opens at a working zoom on its start instead of all of it at once. */
export const LARGE_GRAPH = 300;

/**
 * Where a workflow opens: all of it when that is legible, else (a large graph) its top-left part at
 * a working zoom, where only the nodes on screen are rendered; `F` still fits everything.
 */
export function openingViewport(doc: Pick<Workflow, "nodes" | "annotations">, size: { width: number; height: number }, minZoom: number, cover: FitOptions["cover"] = null): Viewport {
  const fit = fittingViewport(doc, size, { minZoom, cover });
  if (doc.nodes.length <= LARGE_GRAPH || fit.zoom >= 0.4) return fit;
  const zoom = 0.8;
  const minX = Math.min(...doc.nodes.map((n) => n.position.x));
  const minY = Math.min(...doc.nodes.map((n) => n.position.y));
  return { x: 40 - minX * zoom, y: 40 - minY * zoom, zoom };
}

/** A node's size before Vue Flow has measured it (a header and a row per port or setting). */
export function estimatedNodeSize(rows: number): { width: number; height: number } {
  return { width: DEFAULT_NODE_SIZE.width, height: 40 + rows * 26 };
}
