import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import type { WorkflowInput } from "../../packages/types/src/index.ts";
import { openFromList } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

const weft = useWeft({}, async () => {
  await weft.createWorkflow(grid(400, 20));
  await weft.createWorkflow(chain(300));
});

/** Rows of `columns` text nodes, each row a chain. */
function grid(count: number, columns: number): WorkflowInput {
  const nodes: WorkflowInput["nodes"] = [];
  const edges: NonNullable<WorkflowInput["edges"]> = [];
  for (let i = 0; i < count; i++) {
    const col = i % columns;
    nodes.push({ id: `n${i}`, type: "core:text-transform", position: { x: col * 320, y: Math.floor(i / columns) * 220 }, inputs: col === 0 ? { text: "x" } : {} });
    if (col > 0) edges.push({ id: `e${i}`, source: `n${i - 1}`, sourceHandle: "text", target: `n${i}`, targetHandle: "text" });
  }
  return { id: "grid", name: "Grid", nodes, edges };
}

/** One chain of `count` nodes, heaped in a corner (as pasted), waiting for auto-layout. */
function chain(count: number): WorkflowInput {
  const nodes = Array.from({ length: count }, (_, i) => ({ id: `c${i}`, type: "core:text-transform", position: { x: (i % 7) * 30, y: (i % 11) * 30 } }));
  const edges = nodes.slice(1).map((n, i) => ({ id: `e${i}`, source: `c${i}`, sourceHandle: "text", target: n.id, targetHandle: "text" }));
  return { id: "chain", name: "Chain", nodes, edges };
}

async function openWorkflow(page: Page, id: string) {
  await openFromList(page, id);
  await poll(() => page.locator(".vue-flow__node-weft").count()).toBeGreaterThan(0);
  await page.locator(".vue-flow__pane").click({ position: { x: 12, y: 12 } });
}

const zoom = (page: Page) => page.locator(".vue-flow__transformationpane").evaluate((el) => new DOMMatrix(getComputedStyle(el).transform).a);

describe("big graphs", () => {
  it("fits a large graph in view as an overview of plain boxes, and gives the nodes back when zoomed in", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    await openWorkflow(page, "grid");
    await page.keyboard.press("f");
    // Far out, the whole graph is one drawing: no node components, no ports, no text.
    await poll(() => page.locator(".canvas-overview").getAttribute("data-drawn")).toBe("400");
    expect(await page.locator(".vue-flow__node-weft").count()).toBe(0);
    expect(await page.locator(".canvas-overview").getAttribute("aria-label")).toContain("400 nodes");
    while ((await zoom(page)) < 0.25) await page.getByRole("button", { name: "Zoom in" }).click();
    await poll(() => page.locator(".canvas-overview").count()).toBe(0);
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBeGreaterThan(0);
  });

  it("wraps a long chain into a block that fits the screen at a readable zoom", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    await openWorkflow(page, "chain");
    await page.keyboard.press("l");
    // Laid out: the chain reads left to right.
    const box = (id: string) => page.locator(`.vue-flow__node[data-id="${id}"]`).boundingBox();
    await poll(async () => ((await box("c1"))?.x ?? 0) > ((await box("c0"))?.x ?? 0) + ((await box("c0"))?.width ?? 0)).toBe(true);
    // Auto-layout fits the graph in view. One row of 300 nodes fits only at the minimum zoom (0.05); wrapped, it is a block.
    await poll(() => zoom(page)).toBeGreaterThan(0.08);
  });
});
