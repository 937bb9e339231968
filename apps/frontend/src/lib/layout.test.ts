// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { applyCommand } from "./commands.ts";
import { layoutCommand } from "./layout.ts";
import { sampleWorkflow } from "./testing/catalog.ts";

describe("auto-layout", () => {
  it("places every edge left to right and keeps the graph's top-left corner", () => {
    const doc = sampleWorkflow();
    const laid = applyCommand(doc, layoutCommand(doc, () => ({ width: 200, height: 100 }))).doc;
    const at = new Map(laid.nodes.map((n) => [n.id, n.position]));
    for (const e of laid.edges) expect(at.get(e.target)!.x).toBeGreaterThan(at.get(e.source)!.x + 200);
    expect(Math.min(...laid.nodes.map((n) => n.position.x))).toBe(0);
    expect(Math.min(...laid.nodes.map((n) => n.position.y))).toBe(0);
  });
});
