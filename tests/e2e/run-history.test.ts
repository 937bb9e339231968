import { describe, expect, it } from "vitest";
import { inspectRun, node, texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { notesWorkflow, runToEnd } from "./support/notes.ts";
import { useWeft } from "./support/weft.ts";

let firstRun = "";
let secondRun = "";
const weft = useWeft();

const status = (id: string) => node(weft.page, id).locator(".weft-node").getAttribute("data-status", { timeout: 2000 });
const activeTab = () => weft.page.locator(".tab.active").getAttribute("data-tab-id");

describe("run history per workflow", () => {
  it("opens a run of an earlier session on the canvas as it ran, read-only, though the workflow changed since", async () => {
    // Both runs happen before the browser opens: nothing of them is in the page's memory.
    await weft.createWorkflow(notesWorkflow("Notes on {{0}}"));
    firstRun = await runToEnd(weft, "notes", { topic: "looms" });
    const edited = notesWorkflow("Edited {{0}}");
    edited.nodes.push({ id: "extra", type: "core:const-text", position: { x: 0, y: 420 }, config: { value: "added later" } });
    expect((await weft.api("PUT", "/api/workflows/notes", { workflow: { ...edited, revision: 1 }, baseRevision: 1 })).status).toBe(200);
    secondRun = await runToEnd(weft, "notes", { topic: "looms" });

    const { page } = weft;
    await page.goto(weft.url);
    await poll(() => activeTab()).toBe("notes");
    const history = page.locator('[data-testid="run-history"] li');
    await poll(() => history.count()).toBe(2);

    await page.locator(`[data-testid="run-history"] li[data-run-id="${firstRun}"]`).click();
    await poll(() => activeTab()).toBe(`run:${firstRun}`);
    expect(await page.locator(".tab.active").getAttribute("class")).toContain("readonly");
    expect(await texts(page, '[data-testid="as-it-ran"]')).toBe("as it ran · read-only");
    expect(await page.locator(".run-banner").getAttribute("data-run-id")).toBe(firstRun);
    // The graph it ran: without the node added since, every node as it ended.
    await poll(() => node(page, "fill").count()).toBe(1);
    expect(await node(page, "extra").count()).toBe(0);
    expect(await status("fill")).toBe("completed");
    expect(await status("out")).toBe("completed");
    await inspectRun(weft.page, "fill");
    await poll(() => texts(page, '[data-testid="inspector-outputs"]')).toContain('"Notes on looms"');
    // The settings it ran with, not editable.
    await page.locator(".inspector .segmented button", { hasText: "Settings" }).click();
    // (the last "Template" field is the setting; the first is the input that may replace it)
    const template = page
      .locator(".inspector .field", { has: page.locator("label", { hasText: "Template" }) })
      .last()
      .locator("textarea");
    expect(await template.inputValue()).toBe("Notes on {{0}}");
    expect(await template.isDisabled()).toBe(true);

    // The history stays at hand on the read-only tab; the newer run, though it ran the current graph, opens the same way.
    await poll(() => history.count()).toBe(2);
    await page.locator(`[data-testid="run-history"] li[data-run-id="${secondRun}"]`).click();
    await poll(() => activeTab()).toBe(`run:${secondRun}`);
    await poll(() => page.locator(".run-banner").getAttribute("data-run-id")).toBe(secondRun);
    expect(await status("extra")).toBe("completed");
    await inspectRun(weft.page, "fill");
    await poll(() => texts(page, '[data-testid="inspector-outputs"]')).toContain('"Edited looms"');
  });

  it("shows the same run again after a reload, and its own graph once the workflow is edited after a run on its tab", async () => {
    const { page } = weft;
    await page.reload();
    await poll(() => activeTab()).toBe(`run:${secondRun}`);
    await poll(() => page.locator(".run-banner").getAttribute("data-run-id")).toBe(secondRun);
    await poll(() => status("fill")).toBe("completed");
    await inspectRun(weft.page, "fill");
    await poll(() => texts(page, '[data-testid="inspector-outputs"]')).toContain('"Edited looms"');

    // A run started on the workflow's own tab stays there; an edit after it: the banner offers the graph it ran.
    await page.getByTestId("open-workflow").click();
    await poll(() => activeTab()).toBe("notes");
    await page.getByTestId("run").click();
    await page.locator(".run-dialog textarea").fill("looms");
    await page.locator('.run-dialog button[type="submit"]').click();
    await poll(() => page.locator('[data-testid="run-history"] li').count(), { timeout: 15_000 }).toBe(3);
    await poll(() => texts(page, '[data-testid="run-status"]'), { timeout: 15_000 }).toBe("completed");
    const thirdRun = (await page.locator(".run-banner").getAttribute("data-run-id")) as string;
    expect(await activeTab()).toBe("notes");
    await node(page, "extra").locator(".node-title").click();
    await page.keyboard.press("Delete");
    await poll(() => node(page, "extra").count()).toBe(0);
    await page.locator(".run-banner button", { hasText: "Show as it ran" }).click();
    await poll(() => activeTab()).toBe(`run:${thirdRun}`);
    await poll(() => node(page, "extra").count()).toBe(1);
    // (unchanged since the run before, it came from the cache)
    expect(await status("extra")).toMatch(/^(completed|cached)$/);
  });
});
