import { describe, expect, it } from "vitest";
import { besideNode, keepInView } from "./placement.ts";

describe("placing a quick-added node", () => {
  const size = { width: 220, height: 120 };
  it("puts it right of the node it is wired from, left of the one it feeds", () => {
    const anchor = { x: 100, y: 50, width: 200, height: 90 };
    expect(besideNode(anchor, size, "source")).toEqual({ x: 380, y: 50 });
    expect(besideNode(anchor, size, "target")).toEqual({ x: -200, y: 50 });
  });

  it("moves a box that would be off screen (zoomed in on a big graph) inside the view, and leaves one on screen alone", () => {
    const view = { x: 5000, y: 4000, width: 600, height: 400 };
    const placed = keepInView({ x: 5195 + 600, y: 5030 }, size, view);
    expect(placed.x).toBeGreaterThanOrEqual(view.x);
    expect(placed.x + size.width).toBeLessThanOrEqual(view.x + view.width);
    expect(placed.y).toBeGreaterThanOrEqual(view.y);
    expect(placed.y + size.height).toBeLessThanOrEqual(view.y + view.height);
    expect(keepInView({ x: 5100, y: 4100 }, size, view)).toEqual({ x: 5100, y: 4100 });
  });
});
