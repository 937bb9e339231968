// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { DEFAULT_NODE_SIZE } from "../../../shared/graph/node-size.ts";
import { fittingViewport, framingViewport, LARGE_GRAPH, openingViewport } from "./viewport.ts";
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

describe("framing beside the minimap", () => {
  const screenBox = (b: { x: number; y: number; width: number; height: number }, v: { x: number; y: number; zoom: number }) => ({
    left: v.x + b.x * v.zoom,
    top: v.y + b.y * v.zoom,
    right: v.x + (b.x + b.width) * v.zoom,
    bottom: v.y + (b.y + b.height) * v.zoom,
  });
  const cover = { width: 215, height: 173 };
  const covered = (r: ReturnType<typeof screenBox>, canvas: { width: number; height: number }) => r.right > canvas.width - cover.width && r.bottom > canvas.height - cover.height;
  const grid = (cols: number, rows: number) => Array.from({ length: cols * rows }, (_, i) => ({ x: (i % cols) * 300, y: Math.floor(i / cols) * 300, width: 220, height: 120 }));

  it("keeps every node out of the minimap's corner, in a wide canvas and in a tall one", () => {
    const cases = [
      { boxes: grid(4, 2), canvas: { width: 776, height: 446 } },
      { boxes: grid(2, 4), canvas: { width: 500, height: 900 } },
    ];
    for (const { boxes, canvas } of cases) {
      const plain = framingViewport(boxes, canvas);
      expect(boxes.some((b) => covered(screenBox(b, plain), canvas))).toBe(true);
      const v = framingViewport(boxes, canvas, { cover });
      for (const b of boxes) expect(covered(screenBox(b, v), canvas)).toBe(false);
      // Still the whole graph on screen.
      for (const b of boxes) {
        const r = screenBox(b, v);
        expect(r.left).toBeGreaterThanOrEqual(0);
        expect(r.top).toBeGreaterThanOrEqual(0);
        expect(r.right).toBeLessThanOrEqual(canvas.width);
        expect(r.bottom).toBeLessThanOrEqual(canvas.height);
      }
    }
  });

  it("frames as before without a cover", () => {
    const boxes = [{ x: 0, y: 0, width: 100, height: 100 }];
    const canvas = { width: 776, height: 446 };
    expect(framingViewport(boxes, canvas, { cover: null })).toEqual(framingViewport(boxes, canvas));
  });
});
