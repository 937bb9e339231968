// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { applyCommand } from "../../../shared/graph/commands.ts";
import { layoutCommand } from "./layout.ts";
import { sampleWorkflow } from "../../../shared/testing/catalog.ts";

describe("auto-layout", () => {
  it("places every edge left to right and keeps the graph's top-left corner", () => {
    const doc = sampleWorkflow();
    const laid = applyCommand(
      doc,
      layoutCommand(doc, () => ({ width: 200, height: 100 })),
    ).doc;
    const at = new Map(laid.nodes.map((n) => [n.id, n.position]));
    for (const e of laid.edges) expect(at.get(e.target)!.x).toBeGreaterThan(at.get(e.source)!.x + 200);
    expect(Math.min(...laid.nodes.map((n) => n.position.x))).toBe(0);
    expect(Math.min(...laid.nodes.map((n) => n.position.y))).toBe(0);
  });

  it("keeps a short chain (4 or 8 nodes) on one row, left to right", () => {
    for (const length of [4, 8]) {
      const nodes = Array.from({ length }, (_, i) => ({ id: `n${i}`, type: "core:text-transform", position: { x: (i % 2) * 300, y: Math.floor(i / 2) * 200 }, config: {}, inputs: {} }));
      const edges = nodes.slice(1).map((n, i) => ({ id: `e${i}`, source: `n${i}`, sourceHandle: "text", target: n.id, targetHandle: "text" }));
      const doc = { ...sampleWorkflow(), nodes, edges };
      const laid = applyCommand(
        doc,
        layoutCommand(doc, () => ({ width: 220, height: 120 })),
      ).doc;
      expect(new Set(laid.nodes.map((n) => n.position.y)).size).toBe(1);
      const xs = laid.nodes.map((n) => n.position.x);
      expect(xs).toEqual([...xs].sort((a, b) => a - b));
    }
  });

  it("wraps a long chain into a block of left-to-right bands, each starting at the left edge", () => {
    const nodes = Array.from({ length: 300 }, (_, i) => ({ id: `n${i}`, type: "core:text-transform", position: { x: i * 10, y: 0 }, config: {}, inputs: {} }));
    const edges = nodes.slice(1).map((n, i) => ({ id: `e${i}`, source: `n${i}`, sourceHandle: "text", target: n.id, targetHandle: "text" }));
    const doc = { ...sampleWorkflow(), nodes, edges };
    const laid = applyCommand(
      doc,
      layoutCommand(doc, () => ({ width: 220, height: 120 })),
    ).doc;
    const xs = laid.nodes.map((n) => n.position.x);
    const ys = laid.nodes.map((n) => n.position.y);
    const width = Math.max(...xs) + 220;
    const height = Math.max(...ys) + 120;
    expect(width / height).toBeGreaterThan(0.8);
    expect(width / height).toBeLessThan(3);
    // Each band reads left to right; the next one starts again at the left.
    const rows = [...new Set(ys)].sort((a, b) => a - b);
    expect(rows.length).toBeGreaterThan(5);
    const firstOfRow = rows.map((y) => laid.nodes.find((n) => n.position.y === y)!);
    expect(firstOfRow.every((n) => n.position.x === 0)).toBe(true);
    const order = laid.nodes.map((n) => rows.indexOf(n.position.y) * 1e6 + n.position.x);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });
});
