// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { DEFAULT_NODE_SIZE } from "../../../shared/graph/node-size.ts";
import { fittingViewport, LARGE_GRAPH, openingViewport } from "./viewport.ts";
import { testWorkflow } from "../../../shared/testing/catalog.ts";

const grid = (count: number) => testWorkflow({ nodes: Array.from({ length: count }, (_, i) => ({ id: `n${i}`, type: "core:add", position: { x: (i % 40) * 320, y: Math.floor(i / 40) * 220 } })) });

describe("opening viewport", () => {
  it("fits a small graph in the canvas, centred, never zoomed in past 1", () => {
    const doc = testWorkflow({
      nodes: [
        { id: "a", type: "core:add", position: { x: 100, y: 100 } },
        { id: "b", type: "core:add", position: { x: 700, y: 400 } },
      ],
    });
    const v = fittingViewport(doc, { width: 700, height: 500 });
    const width = 600 + DEFAULT_NODE_SIZE.width;
    const height = 300 + DEFAULT_NODE_SIZE.height;
    expect(v.zoom).toBeCloseTo(Math.min((700 * 0.85) / width, (500 * 0.85) / height));
    expect(v.zoom).toBeLessThan(1);
    // the centre of the graph lands on the centre of the canvas
    expect(v.x + ((100 + 100 + width) / 2) * v.zoom).toBeCloseTo(350);
    expect(v.y + ((100 + 100 + height) / 2) * v.zoom).toBeCloseTo(250);
    expect(fittingViewport(testWorkflow({ nodes: [{ id: "a", type: "core:add" }] }), { width: 4000, height: 4000 }).zoom).toBe(1);
  });

  it("opens a large graph at a working zoom on its top-left corner, where little is rendered", () => {
    const big = grid(LARGE_GRAPH + 1);
    const v = openingViewport(big, { width: 1000, height: 600 }, 0.05);
    expect(v).toEqual({ x: 40, y: 40, zoom: 0.8 });
    expect(openingViewport(grid(20), { width: 1000, height: 600 }, 0.05)).toEqual(fittingViewport(grid(20), { width: 1000, height: 600 }, { minZoom: 0.05 }));
  });
});
