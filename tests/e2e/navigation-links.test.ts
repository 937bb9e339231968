import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { node } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { notesWorkflow, runToEnd } from "./support/notes.ts";
import { useWeft } from "./support/weft.ts";

const weft = useWeft();

const notes = notesWorkflow("About {{0}}");

const hash = (page: Page) => new URL(page.url()).hash;
/** The active tab lies wholly inside the visible part of the tab strip. */
async function activeInView(page: Page): Promise<boolean> {
  const strip = await page.locator(".tab-list").boundingBox();
  const tab = await page.locator(".tab.active").boundingBox();
  return !!strip && !!tab && tab.x >= strip.x - 1 && tab.x + tab.width <= strip.x + strip.width + 1;
}
const activeTab = (page: Page) => page.locator(".tab.active").getAttribute("data-tab-id");

describe("links, the tab strip and the minimap", () => {
  it("a link to a run's node opens that run read-only as it ran and selects the node; the address follows the selection", async () => {
    const { page } = weft;
    await weft.createWorkflow(notes);
    const runId = await runToEnd(weft, "notes", { topic: "links" });

    await page.goto(`${weft.url}/#/workflows/notes/runs/${runId}?node=fill`);
    // A past run opens on its own read-only tab (one rule for every link to a run: features/runs/README.md).
    await poll(() => activeTab(page)).toBe(`run:${runId}`);
    await poll(() => node(page, "fill").locator(".weft-node").getAttribute("data-status")).toBe("completed");
    await poll(() => node(page, "fill").getAttribute("class")).toContain("selected");
    expect(hash(page)).toBe(`#/workflows/notes/runs/${runId}?node=fill`);

    await node(page, "out").click();
    await poll(() => hash(page)).toBe(`#/workflows/notes/runs/${runId}?node=out`);
    await page.getByRole("button", { name: "Open the workflow" }).click();
    await poll(() => activeTab(page)).toBe("notes");
  });

  it("a link to a workflow opens it; its address is kept across a reload", async () => {
    const { page } = weft;
    await weft.createWorkflow({ ...notes, id: "second", name: "Second" });
    await page.goto(`${weft.url}/#/workflows/second?node=topic`);
    await poll(() => activeTab(page)).toBe("second");
    await poll(() => node(page, "topic").getAttribute("class")).toContain("selected");
    await page.reload();
    await poll(() => activeTab(page)).toBe("second");
    expect(hash(page)).toBe("#/workflows/second?node=topic");
  });

  it("the active tab is scrolled into view when tabs overflow, and 'All open workflows' lists every tab", async () => {
    const { page } = weft;
    await page.setViewportSize({ width: 1200, height: 800 });
    for (let i = 0; i < 9; i++) await page.getByRole("button", { name: "New workflow" }).first().click();
    const count = await page.locator(".tab").count();
    await poll(() => activeInView(page)).toBe(true);

    await page.getByRole("button", { name: /All open workflows/ }).click();
    const items = page.locator("#all-tabs-list button");
    expect(await items.count()).toBe(count);
    // The workflow's own tab, not the tab of its past run ("Notes · run …").
    await items.filter({ hasText: /^\s*Notes\s*$/ }).click();
    await poll(() => activeTab(page)).toBe("notes");
    await poll(() => activeInView(page)).toBe(true);
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it("the minimap folds away, and stays folded after a reload", async () => {
    const { page } = weft;
    await poll(() => page.locator(".minimap-canvas").count()).toBe(1);
    await page.getByRole("button", { name: "Minimap" }).click();
    await poll(() => page.locator(".minimap-canvas").count()).toBe(0);
    await page.reload();
    await poll(() => page.getByRole("button", { name: "Minimap" }).getAttribute("aria-expanded")).toBe("false");
    expect(await page.locator(".minimap-canvas").count()).toBe(0);
    await page.getByRole("button", { name: "Minimap" }).click();
    await poll(() => page.locator(".minimap-canvas").count()).toBe(1);
  });

  it("the minimap draws the nodes as measured: folding and unfolding it draws the same picture", async () => {
    const { page } = weft;
    await weft.createWorkflow({ ...notes, id: "measured", name: "Measured" });
    await page.goto(`${weft.url}/#/workflows/measured`);
    await poll(() => activeTab(page)).toBe("measured");
    await poll(() => node(page, "out").isVisible()).toBe(true);
    const toggle = page.getByRole("button", { name: "Minimap" });
    if ((await toggle.getAttribute("aria-expanded")) === "false") await toggle.click();
    // The picture once it no longer changes from one frame to the next (the nodes are measured after they show).
    const settled = () =>
      page.locator(".minimap-canvas").evaluate(async (canvas) => {
        const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
        const before = (canvas as HTMLCanvasElement).toDataURL();
        await frame();
        await frame();
        await frame();
        return before === (canvas as HTMLCanvasElement).toDataURL() ? before : null;
      });
    let shown: string | null = null;
    await poll(async () => (shown = await settled()) !== null).toBe(true);
    // Unfolded, the minimap is drawn afresh from the sizes Vue Flow holds now.
    await toggle.click();
    await poll(() => page.locator(".minimap-canvas").count()).toBe(0);
    await toggle.click();
    await poll(() => settled()).toBe(shown);
  });
});
