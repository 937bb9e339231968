import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { viewSettled } from "./support/canvas.ts";
import { box, fullyShown, inViewport, overlap } from "./support/geometry.ts";
import { runToEnd } from "./support/notes.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

/** The repository's examples: agents, the notice-board scene, workflows with nodes and an interface input. */
const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));
const VIEWPORT = { width: 1024, height: 700 };
const weft = useWeft({ examplesDir: EXAMPLES, viewport: VIEWPORT });

async function openWorkflow(page: Page, id: string) {
  await page.goto(`${weft.url}/#/workflows/${id}`);
  await poll(() => page.locator(`.tab.active[data-tab-id="${id}"]`).count()).toBe(1);
  await poll(() => page.locator(".vue-flow__node").count()).toBeGreaterThan(0);
}

describe("a 1024x700 window", () => {
  it("shows the agent chat's Send button whole", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/agents`);
    await page.locator('.agent-item[data-agent-id="calculator"]').click();
    const send = page.getByTestId("chat-send");
    await poll(() => send.count()).toBe(1);
    expect(await inViewport(send)).toBe(true);
    // Nothing of the page is wider than the window (which would push the header's user menu off, too).
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(VIEWPORT.width);
    expect(await inViewport(page.getByTestId("user-menu"))).toBe(true);
  });

  it("shows the scene's whole title", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/scenes`);
    await page.locator(`.scene-item[data-scene-id="notice-board"]`).click();
    const title = page.locator(".scene-title");
    await poll(() => title.textContent()).toContain("Notice board");
    expect(await fullyShown(title)).toBe(true);
    expect(await inViewport(page.getByTestId("scene-start"))).toBe(true);
  });

  it("shows the agent's whole name in its editor's header, and its revision on one line", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/agents`);
    await page.locator('.agent-item[data-agent-id="calculator"]').click();
    const name = page.locator(".agent-editor-title h2");
    await poll(() => name.textContent()).toMatch(/^Calc/);
    expect(await name.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    expect(await fullyShown(name)).toBe(true);
    const revision = page.locator(".agent-editor-title > span").first();
    expect(await revision.textContent()).toMatch(/^revision \d+/);
    // One line box: a wrapped "revision 1" would lay its text out on two.
    expect(
      await revision.evaluate((el) => {
        const r = document.createRange();
        r.selectNodeContents(el);
        return new Set(Array.from(r.getClientRects(), (b) => Math.round(b.top))).size;
      }),
    ).toBe(1);
  });

  it("fits the scene's agent cards in their column", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/scenes`);
    await page.locator(`.scene-item[data-scene-id="notice-board"]`).click();
    const cards = page.locator('[data-testid="scene-agents"] .agent-card');
    await poll(() => cards.count()).toBeGreaterThan(1);
    const column = await box(page.locator(".scene-main"));
    for (const card of await cards.all()) {
      const r = await box(card);
      expect(r.x + r.width, `card ${await card.getAttribute("data-agent")} past its column's right edge`).toBeLessThanOrEqual(column.x + column.width + 0.5);
      expect(r.x).toBeGreaterThanOrEqual(column.x - 0.5);
    }
  });

  it("folds the minimap, and Fit frames every node clear of it, folded or open", async () => {
    const { page } = weft;
    await openWorkflow(page, "agent-deliberation");
    const minimap = page.locator(".minimap");
    // Folded to its toggle: open, it would take a large part of this canvas.
    await poll(() => minimap.locator(".minimap-toggle").getAttribute("aria-expanded")).toBe("false");
    for (const state of ["folded", "open"]) {
      if (state === "open") {
        await minimap.locator(".minimap-toggle").click();
        await poll(() => page.locator(".minimap-canvas").count()).toBe(1);
      }
      await page.locator(".vue-flow__pane").click({ position: { x: 8, y: 8 } });
      await page.keyboard.press("f");
      await viewSettled(page);
      const cover = await box(minimap);
      const pane = await box(page.locator(".vue-flow__pane"));
      const nodes = await page.locator(".vue-flow__node").all();
      expect(nodes.length).toBeGreaterThan(3);
      for (const n of nodes) {
        const r = await box(n);
        expect(overlap(r, cover), `${state}: node ${await n.getAttribute("data-id")} under the minimap`).toBe(false);
        // And still on the canvas: Fit shows them all.
        expect(r.x >= pane.x - 1 && r.y >= pane.y - 1 && r.x + r.width <= pane.x + pane.width + 1 && r.y + r.height <= pane.y + pane.height + 1).toBe(true);
      }
    }
  });

  it("lays a run's inputs and outputs out readably in the run panel", async () => {
    const { page } = weft;
    await openWorkflow(page, "build-messages");
    await page.getByTestId("run").click();
    // It has an interface input: the Run dialog asks, prefilled with its default.
    await page.getByRole("dialog", { name: "Run inputs" }).waitFor();
    await page.keyboard.press("Control+Enter");
    const outputs = page.getByTestId("run-outputs");
    await poll(() => outputs.count(), { timeout: 30_000 }).toBe(1);
    // Each block is wide enough for a line of JSON, not a column a few letters wide.
    for (const block of [outputs, page.locator(".run-io > div").first()]) expect((await box(block)).width).toBeGreaterThan(150);
    expect(await inViewport(page.locator(".run-result .section-title").first())).toBe(true);
  });

  it("lays each run history row out without overlaps: status, time, duration, version and tokens side by side or wrapped", async () => {
    const { page } = weft;
    // An LLM call through the demo LLM, so the row carries its tokens too.
    const workflow = { id: "say-hi", name: "Say hi", nodes: [{ id: "chat", type: "llm:chat", position: { x: 0, y: 0 }, config: {}, inputs: { prompt: "Say hi" } }], edges: [] };
    await weft.createWorkflow(workflow);
    const runId = await runToEnd(weft, "say-hi", {});
    // The workflow's own tab: its rows also have the "run again" button.
    await openWorkflow(page, "say-hi");
    if ((await page.getByTestId("run-history").count()) === 0) await page.locator(".run-panel-toggle").click();
    const row = page.locator(`[data-testid="run-history"] li[data-run-id="${runId}"]`);
    await poll(() => row.getByTestId("history-usage").count(), { timeout: 15_000 }).toBe(1);
    const row_ = await box(row);
    const parts = [row.locator(".pill"), row.locator(".row-main .nowrap").first(), row.locator(".row-main .nowrap").nth(1), row.getByTestId("history-usage"), row.locator("button.rerun")];
    const rects = [];
    for (const part of parts) {
      const r = await box(part);
      // Inside its row, and the row inside the window.
      expect(r.x >= row_.x - 0.5 && r.x + r.width <= row_.x + row_.width + 0.5 && r.y >= row_.y - 0.5 && r.y + r.height <= row_.y + row_.height + 0.5).toBe(true);
      rects.push(r);
    }
    for (let i = 0; i < rects.length; i++) {
      for (let j = i + 1; j < rects.length; j++) expect(overlap(rects[i], rects[j]), `parts ${i} and ${j} of the row overlap`).toBe(false);
    }
    expect(await inViewport(row)).toBe(true);
    expect(await fullyShown(row.getByTestId("history-usage"))).toBe(true);
  });

  it("keeps six open workflows' tabs reachable, and the top bar's buttons on screen", async () => {
    const { page } = weft;
    const ids = ["text-pipeline", "branch", "fan-out-fan-in", "map-summaries", "switch-route", "partial-failure"];
    for (const id of ids) await openWorkflow(page, id);
    const strip = page.locator(".tab-list");
    // Room for at least two tabs' names, not a sliver between the view switch and the buttons.
    expect((await box(strip)).width).toBeGreaterThan(300);
    for (const id of ids) {
      const tab = page.locator(`.tab[data-tab-id="${id}"]`);
      await tab.click();
      await poll(() => tab.getAttribute("aria-selected")).toBe("true");
      const r = await box(tab);
      const s = await box(strip);
      expect(r.x >= s.x - 1 && r.x + r.width <= s.x + s.width + 1, `tab ${id} scrolled into the strip`).toBe(true);
      expect(await inViewport(tab)).toBe(true);
    }
    for (const control of [page.getByTestId("run"), page.getByTestId("save"), page.getByRole("button", { name: /All open workflows/ }), page.getByTestId("user-menu")]) {
      expect(await inViewport(control)).toBe(true);
    }
  });
});

describe("small things of issue 37", () => {
  it("selects the kept input when the Run dialog opens, so typing replaces it", async () => {
    const { page } = weft;
    await openWorkflow(page, "text-pipeline");
    await page.evaluate(() => localStorage.setItem("weft.runInputs.text-pipeline", JSON.stringify({ topic: "looms" })));
    await page.getByTestId("run").click();
    const field = page.locator('.run-dialog [aria-label="topic"]');
    await poll(() => field.inputValue()).toBe("looms");
    await poll(() => field.evaluate((el) => (el as HTMLTextAreaElement).selectionStart === 0 && (el as HTMLTextAreaElement).selectionEnd === 5 && document.activeElement === el)).toBe(true);
    await page.keyboard.type("silk");
    expect(await field.inputValue()).toBe("silk");
    await page.keyboard.press("Escape");
  });

  it("titles the palette's groups LLM and HTTP", async () => {
    const { page } = weft;
    await openWorkflow(page, "text-pipeline");
    const labels = await page.locator(".palette-category").evaluateAll((els) => els.map((el) => (el as HTMLElement).innerText));
    expect(labels.some((l) => /\bLLM\b/.test(l))).toBe(true);
    expect(labels.some((l) => /\bHTTP\b/.test(l))).toBe(true);
    expect(labels.some((l) => /Llm|Http/.test(l))).toBe(false);
  });
});
