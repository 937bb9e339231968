// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { testWorkflow } from "../../../shared/testing/catalog.ts";
import { cullArea, nodesToShow } from "./culling.ts";

const SIZE = { width: 200, height: 100 };
/** Rows of 10 nodes 300 apart, 200 between rows; every row a chain, and one long edge from the first node to the last. */
const doc = testWorkflow({
  nodes: Array.from({ length: 100 }, (_, i) => ({ id: `n${i}`, type: "core:add", position: { x: (i % 10) * 300, y: Math.floor(i / 10) * 200 } })),
  edges: [
    ...Array.from({ length: 100 }, (_, i) => i)
      .filter((i) => i % 10 > 0)
      .map((i) => ({ id: `e${i}`, source: `n${i - 1}`, sourceHandle: "result", target: `n${i}`, targetHandle: "a" })),
    { id: "long", source: "n0", sourceHandle: "result", target: "n99", targetHandle: "a" },
  ],
});

describe("a large graph's culling", () => {
  it("grows the view by half a screen on each side, in flow units", () => {
    expect(cullArea({ x: -600, y: -400, zoom: 2 }, { width: 800, height: 600 })).toEqual({ x: 100, y: 50, width: 800, height: 600 });
  });

  it("keeps the nodes in the area, both ends of an edge crossing it, and the pinned ones", () => {
    // Around n44 only (x 1200–1400, y 800–900).
    const shown = nodesToShow(doc, { x: 1250, y: 820, width: 10, height: 10 }, () => SIZE, ["n7"]);
    // n44, its neighbours in the chain (their edges reach into n44), n0 → n99 passing over it (Vue Flow needs
    // both ends to draw an edge), and the pinned n7; not n34 above it.
    expect([...shown].sort()).toEqual(["n0", "n43", "n44", "n45", "n7", "n99"]);
  });

  it("keeps both ends of an edge reaching into the area, though neither node is in it", () => {
    // Just right of n44's box, short of n45 (x 1500): the edge n44 → n45 spans it.
    const shown = nodesToShow(doc, { x: 1420, y: 820, width: 10, height: 10 }, () => SIZE, []);
    expect([...shown].sort()).toEqual(["n0", "n44", "n45", "n99"]);
  });

  it("ignores a pinned id the document does not have (an annotation's)", () => {
    expect(nodesToShow(doc, { x: -1000, y: -1000, width: 1, height: 1 }, () => SIZE, ["annotation/a1"]).size).toBe(0);
  });
});
