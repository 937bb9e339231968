import { describe, expect, it } from "vitest";
import type { Locator, Page } from "playwright-core";
import type { WorkflowInput } from "../../packages/types/src/index.ts";
import { viewSettled } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { notesWorkflow, runToEnd } from "./support/notes.ts";
import { useWeft } from "./support/weft.ts";

const weft = useWeft({ viewport: { width: 1024, height: 700 } });

const activeTab = (page: Page) => page.locator(".tab.active").getAttribute("data-tab-id");
const historyRow = (page: Page, runId: string) => page.locator(`[data-testid="run-history"] li[data-run-id="${runId}"]`);

/** A column of four nodes: taller than wide, so Fit frames it from the canvas's top edge to its bottom. */
const column = (id: string): WorkflowInput => ({
  id,
  name: `Column ${id}`,
  nodes: [
    { id: "a", type: "core:const-text", position: { x: 0, y: 0 }, config: { value: "one" } },
    { id: "b", type: "core:text-template", position: { x: 0, y: 220 }, config: { template: "two {{0}}" } },
    { id: "c", type: "core:text-template", position: { x: 0, y: 440 }, config: { template: "three {{0}}" } },
    { id: "d", type: "core:workflow-output", position: { x: 0, y: 660 }, config: { name: "text", portType: "string" } },
  ],
  edges: [
    { id: "e1", source: "a", sourceHandle: "value", target: "b", targetHandle: "values" },
    { id: "e2", source: "b", sourceHandle: "text", target: "c", targetHandle: "values" },
    { id: "e3", source: "c", sourceHandle: "text", target: "d", targetHandle: "value" },
  ],
});

async function box(locator: Locator) {
  const rect = await locator.boundingBox();
  if (!rect) throw new Error(`not shown: ${locator}`);
  return rect;
}

/** Boxes of the run banner and of every node title that overlap (nothing, when the banner covers no title). */
async function coveredTitles(page: Page): Promise<string[]> {
  const banner = await box(page.locator(".run-banner"));
  const covered: string[] = [];
  for (const title of await page.locator(".vue-flow__node .node-title").all()) {
    const t = await box(title);
    if (t.x < banner.x + banner.width && banner.x < t.x + t.width && t.y < banner.y + banner.height && banner.y < t.y + t.height) covered.push((await title.textContent()) ?? "");
  }
  return covered;
}

async function fit(page: Page) {
  await page.getByRole("button", { name: "Fit view" }).click();
  await viewSettled(page);
}

describe("past runs open the same way everywhere", () => {
  it("opens a past run from the run history read-only, though the workflow's graph is unchanged", async () => {
    const { page } = weft;
    await weft.createWorkflow(notesWorkflow("Notes on {{0}}"));
    const past = await runToEnd(weft, "notes", { topic: "looms" });
    await page.goto(`${weft.url}/#/workflows/notes`);
    await poll(() => activeTab(page)).toBe("notes");

    await historyRow(page, past).click();
    await poll(() => activeTab(page)).toBe(`run:${past}`);
    expect(await page.locator(".tab.active").getAttribute("class")).toContain("readonly");
    await poll(() => page.locator(".run-banner").getAttribute("data-run-id")).toBe(past);
    expect(await page.getByTestId("readonly-banner").textContent()).toMatch(/Read-only: this is run \S+ of Notes, version 1, shown as it ran/);
    // The graph cannot be changed: a node's Delete removes nothing.
    await page.locator('.vue-flow__node[data-id="fill"] .node-title').click();
    await page.keyboard.press("Delete");
    expect(await page.locator('.vue-flow__node[data-id="fill"]').count()).toBe(1);

    // "Open the workflow" leads to the editable tab, which shows no past run.
    await page.getByTestId("open-workflow").click();
    await poll(() => activeTab(page)).toBe("notes");
    expect(await page.locator(".run-banner").count()).toBe(0);
  });

  it("opens a pasted link to a past run read-only too", async () => {
    const { page } = weft;
    await weft.createWorkflow(notesWorkflow("Notes on {{0}}", "linked", "Linked"));
    const past = await runToEnd(weft, "linked", { topic: "looms" });
    await page.goto(`${weft.url}/#/workflows/linked`);
    await poll(() => activeTab(page)).toBe("linked");
    await page.goto(`${weft.url}/#/workflows/linked/runs/${past}`);
    await poll(() => activeTab(page)).toBe(`run:${past}`);
    await page.getByTestId("readonly-banner").waitFor();
    await poll(() => page.locator(".run-banner").getAttribute("data-run-id")).toBe(past);
  });

  it("keeps the run started on the editable tab there, also when its history row is clicked", async () => {
    const { page } = weft;
    await weft.createWorkflow(column("live"));
    await page.goto(`${weft.url}/#/workflows/live`);
    await poll(() => activeTab(page)).toBe("live");
    await page.getByTestId("run").click();
    await poll(() => page.locator(".run-banner").getAttribute("data-run-id")).not.toBe(null);
    const current = (await page.locator(".run-banner").getAttribute("data-run-id")) as string;
    await poll(() => page.getByTestId("run-status").textContent(), { timeout: 15_000 }).toBe("completed");
    expect(await activeTab(page)).toBe("live");
    expect(await page.getByTestId("readonly-banner").count()).toBe(0);

    await historyRow(page, current).click();
    expect(await activeTab(page)).toBe("live");
    expect(await page.locator(`.tab[data-tab-id="run:${current}"]`).count()).toBe(0);
  });
});

describe("the run banner covers no node", () => {
  for (const size of [
    { width: 1024, height: 700 },
    { width: 1440, height: 900 },
  ]) {
    it(`after a run and Fit at ${size.width}x${size.height}, no node title lies under the run banner`, async () => {
      const { page } = weft;
      await page.setViewportSize(size);
      const id = `column-${size.width}`;
      await weft.createWorkflow(column(id));
      await page.goto(`${weft.url}/#/workflows/${id}`);
      await poll(() => page.locator(".vue-flow__node .node-title").count()).toBe(4);
      await page.getByTestId("run").click();
      await poll(() => page.getByTestId("run-status").textContent(), { timeout: 15_000 }).toBe("completed");
      await fit(page);
      expect(await coveredTitles(page)).toEqual([]);
      // Fit still frames every node: each title lies inside the canvas.
      const pane = await box(page.locator(".vue-flow__pane"));
      for (const title of await page.locator(".vue-flow__node .node-title").all()) {
        const t = await box(title);
        expect(t.y).toBeGreaterThanOrEqual(pane.y);
        expect(t.y + t.height).toBeLessThanOrEqual(pane.y + pane.height);
      }

      // A past run's tab has two rows above the canvas: neither covers a title.
      const past = await runToEnd(weft, id, {});
      // A run started elsewhere (here through the API) joins the history on Refresh.
      await page.locator(".run-history button[title='Refresh']").click();
      await historyRow(page, past).click();
      await poll(() => activeTab(page)).toBe(`run:${past}`);
      await poll(() => page.locator(".vue-flow__node .node-title").count()).toBe(4);
      await fit(page);
      expect(await coveredTitles(page)).toEqual([]);
      const readonly = await box(page.getByTestId("readonly-banner"));
      for (const title of await page.locator(".vue-flow__node .node-title").all()) expect((await box(title)).y).toBeGreaterThanOrEqual(readonly.y + readonly.height);
    });
  }
});
