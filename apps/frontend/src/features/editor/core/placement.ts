/** Where a node added by quick-add or the keyboard goes: beside the node it is wired to, and on screen. */
/** A box in flow coordinates. */
export type FlowRect = { x: number; y: number; width: number; height: number };

/** Space kept between two nodes placed side by side, and between a placed node and the view's edge (a share of the view). */
const BESIDE_GAP = 80;
const VIEW_MARGIN = 0.03;

/** Where a new node of `size` goes next to `anchor`: right of it when wired from its output, left of it when wired into its input. */
export function besideNode(anchor: FlowRect, size: { width: number; height: number }, fromSide: "source" | "target"): { x: number; y: number } {
  return { x: fromSide === "source" ? anchor.x + anchor.width + BESIDE_GAP : anchor.x - size.width - BESIDE_GAP, y: anchor.y };
}

/**
 * `at` moved as little as needed for a box of `size` there to lie inside `view` (the part of the flow
 * on screen), a small margin from its edges; a view smaller than the box gets its top-left corner.
 */
export function keepInView(at: { x: number; y: number }, size: { width: number; height: number }, view: FlowRect): { x: number; y: number } {
  if (view.width <= 0 || view.height <= 0) return at;
  const mx = view.width * VIEW_MARGIN;
  const my = view.height * VIEW_MARGIN;
  const clamp = (value: number, low: number, high: number) => (high < low ? low : Math.min(Math.max(value, low), high));
  return { x: clamp(at.x, view.x + mx, view.x + view.width - mx - size.width), y: clamp(at.y, view.y + my, view.y + view.height - my - size.height) };
}
