import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import type { WorkflowInput } from "../../packages/types/src/index.ts";
import { inView, node } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

/**
 * A 1,000-node graph opens with Vue Flow holding only the nodes near the screen (its own culling): what
 * reaches every node must still reach those far off screen.
 */
const weft = useWeft({}, async () => {
  await weft.createWorkflow(grid("big", 1000));
  // The same grid, its first row (40 nodes, 12,700 wide: far wider than the screen) in a frame.
  await weft.createWorkflow(grid("mid", 200));
  await weft.createWorkflow({ ...grid("framed", 1000), annotations: [{ id: "row", kind: "frame", position: { x: -20, y: -20 }, size: { width: 13_000, height: 200 }, text: "Row" }] });
});

const COLUMNS = 40;
/** The last row's first node, far below the opening view, lacks its required text: the check names it. */
const FAR = "n960";

/** Rows of text nodes, each row a chain (as bench:canvas). */
function grid(id: string, count: number): WorkflowInput {
  const nodes: WorkflowInput["nodes"] = [];
  const edges: NonNullable<WorkflowInput["edges"]> = [];
  for (let i = 0; i < count; i++) {
    const col = i % COLUMNS;
    nodes.push({ id: `n${i}`, type: "core:text-transform", position: { x: col * 320, y: Math.floor(i / COLUMNS) * 220 }, inputs: col === 0 && `n${i}` !== FAR ? { text: "x" } : {} });
    if (col > 0) edges.push({ id: `e${i}`, source: `n${i - 1}`, sourceHandle: "text", target: `n${i}`, targetHandle: "text" });
  }
  return { id, name: "Big", nodes, edges };
}

/** Opens the graph by its link, at its opening view (a large graph: its top-left corner, only that rendered). */
async function openBig(page: Page, id = "big") {
  // From elsewhere: a link to the page already shown would only change its hash.
  await page.goto("about:blank");
  await page.goto(`${weft.url}/#/workflows/${id}`);
  await poll(() => page.locator(".vue-flow__node-weft").count()).toBeGreaterThan(0);
  expect(await page.locator(".vue-flow__node-weft").count()).toBeLessThan(100);
}

const focusedNode = (page: Page) => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.id ?? null);

describe("a large graph's nodes off screen", () => {
  it("are reached by the arrow keys: the focus moves to the next node right, brought into view, column after column", async () => {
    const { page } = weft;
    await openBig(page);
    await node(page, "n0").focus();
    // At the opening zoom about five columns are on screen: the eighth is off it (not rendered when the keys start).
    expect(await node(page, "n8").count()).toBe(0);
    for (let col = 1; col <= 8; col++) {
      await page.keyboard.press("ArrowRight");
      await poll(() => focusedNode(page)).toBe(`n${col}`);
    }
    await poll(() => inView(page, "n8")).toBe(true);
  });

  it("are found by the check's Jump to node: the node is brought into view and selected", async () => {
    const { page } = weft;
    await openBig(page);
    await page.locator(".vue-flow__pane").click({ position: { x: 12, y: 12 } });
    expect(await node(page, FAR).count()).toBe(0);
    await page.getByRole("button", { name: "Validate" }).click();
    // The one problem: that node's text has nothing to fill it.
    await page.locator(".workflow-settings .issues").getByRole("button", { name: "Jump to node" }).first().click();
    await poll(() => inView(page, FAR)).toBe(true);
    await poll(() => node(page, FAR).getAttribute("class")).toContain("selected");
  });

  it("are opened by a link to one of them (?node=): the node is brought into view and selected", async () => {
    const { page } = weft;
    // A browser that has no tab of it open (a reload of its own tab keeps that tab's view and only selects the node).
    await page.goto(`${weft.url}/api/health`);
    await page.evaluate(() => localStorage.clear());
    await page.goto(`${weft.url}/#/workflows/big?node=${FAR}`);
    await poll(() => inView(page, FAR)).toBe(true);
    await poll(() => node(page, FAR).getAttribute("class")).toContain("selected");
  });

  it("are brought into view by a link to one of them when the workflow is open already: followed in the page, or opened anew", async () => {
    const { page } = weft;
    // Its tab open and active, at its opening view: a link followed in the page (its address typed or clicked).
    await openBig(page);
    expect(await node(page, FAR).count()).toBe(0);
    await page.evaluate((far) => (location.hash = `#/workflows/big?node=${far}`), FAR);
    await poll(() => inView(page, FAR)).toBe(true);
    await poll(() => node(page, FAR).getAttribute("class")).toContain("selected");

    // The tab remembered (by another window of this browser, say) and the link opened in a new page.
    await openBig(page);
    await page.goto("about:blank");
    await page.goto(`${weft.url}/#/workflows/big?node=${FAR}`);
    await poll(() => inView(page, FAR)).toBe(true);
    await poll(() => node(page, FAR).getAttribute("class")).toContain("selected");
  });

  it("move with a frame dragged by its title, as the nodes on screen do", async () => {
    const { page } = weft;
    await openBig(page, "framed");
    const title = (await page.locator(".frame-title").boundingBox())!;
    // Its left padding: the name field (not a grip) starts past it.
    const from = { x: title.x + 3, y: title.y + title.height / 2 };
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(from.x + 8 * i, from.y + 8 * i);
    await page.mouse.up();
    await page.keyboard.press("Control+s");
    const moved = async () => {
      const stored = await weft.storedWorkflow("framed");
      const at = (id: string) => stored.nodes.find((n) => n.id === id)!.position;
      return { near: at("n0").x, far: at("n39").x - 39 * 320 };
    };
    await poll(async () => (await moved()).near, { timeout: 15_000 }).toBeGreaterThan(40);
    const { near, far } = await moved();
    expect(far).toBe(near);
  });

  it("are selected by Select everything: Delete then removes all 1,000, and the save stores none", async () => {
    const { page } = weft;
    await openBig(page);
    await page.locator(".vue-flow__pane").click({ position: { x: 12, y: 12 } });
    await page.keyboard.press("Control+a");
    await page.keyboard.press("Delete");
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(0);
    await page.keyboard.press("Control+s");
    await poll(async () => (await weft.storedWorkflow("big")).nodes.length, { timeout: 15_000 }).toBe(0);
    expect((await weft.storedWorkflow("big")).edges).toEqual([]);
  });
});

describe("a graph of 151-300 nodes, zoomed in (Vue Flow renders only what is on screen)", () => {
  it("is framed whole by Fit: every node on screen, not only those that were", async () => {
    const { page } = weft;
    await page.goto("about:blank");
    await page.goto(`${weft.url}/#/workflows/mid`);
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(200);
    // It opens whole, far out; zoomed in, only what is on screen is rendered. Twelve presses in one task, faster than
    // any frame (as on a busy machine): each zooms from where the one before was going, none is lost.
    await page.evaluate(() => {
      const zoomIn = document.querySelector<HTMLButtonElement>('.vue-flow__controls button[aria-label="Zoom in"]')!;
      for (let i = 0; i < 12; i++) zoomIn.click();
    });
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBeLessThan(100);
    await page.locator(".vue-flow__pane").click({ position: { x: 12, y: 12 } });
    await page.keyboard.press("f");
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(200);
    for (const id of ["n0", "n39", "n160", "n199"]) await poll(() => inView(page, id)).toBe(true);
  });
});
