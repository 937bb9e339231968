import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import type { WorkflowInput } from "../../packages/types/src/index.ts";
import { RunListSchema, WorkflowListSchema } from "../../apps/frontend/src/shared/api/schemas.ts";
import { inView, node, openFromList, texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

// The small window of the issue: everything here must work at 1024×700.
const weft = useWeft({ viewport: { width: 1024, height: 700 } });

/** JSON with an error on its second line: Parse JSON fails with that line quoted and a caret under "bad". */
const BROKEN = '{"a": 1,\n "b": bad}';
const orders: WorkflowInput = {
  id: "orders",
  name: "Orders",
  nodes: [
    { id: "raw", type: "core:const-text", label: "Order text", position: { x: 0, y: 0 }, config: { value: BROKEN } },
    // Far from the text node: "Jump to node" has to bring it into view.
    { id: "json_parse_1", type: "core:json-parse", position: { x: 2600, y: 1400 } },
  ],
  edges: [{ id: "e1", source: "raw", sourceHandle: "value", target: "json_parse_1", targetHandle: "text" }],
};

/** Moves the canvas so that the node is out of view and (unless kept) selects nothing, as before a jump. */
async function lookElsewhere(page: Page, id: string, options: { keepSelection?: boolean } = {}) {
  if (!options.keepSelection) await page.locator(".vue-flow__pane").click({ position: { x: 5, y: 5 } });
  const pane = (await page.locator(".vue-flow__pane").boundingBox())!;
  // Drags the empty canvas (which pans it) until the node is out of view; from near the top right
  // corner, below the run banner: not from the node, which a jump left in the middle.
  const [x, y] = [pane.x + pane.width - 30, pane.y + 70];
  for (let i = 0; i < 10 && (await inView(page, id)); i++) {
    await page.mouse.move(x, y);
    await page.mouse.down();
    for (let step = 1; step <= 8; step++) await page.mouse.move(x - step * 40, y + step * 40);
    await page.mouse.up();
  }
  if (!options.keepSelection) await poll(() => node(page, id).getAttribute("class")).not.toContain("selected");
}

const storedNames = async () => (await weft.read("/api/workflows", WorkflowListSchema)).workflows.map((w) => w.name).sort();

describe("run-time errors in the user's words", () => {
  it("names the failed node by title, lays its caret out under the column, and jumps to the node from the toast, the run panel and the inspector", async () => {
    const { page } = weft;
    await weft.createWorkflow(orders);
    // The first page of a busy machine may take longer than a step's default 8 s.
    await page.goto(weft.url, { timeout: 30_000 });
    await openFromList(page, "orders");
    await poll(() => node(page, "json_parse_1").count()).toBe(1);

    await page.locator(".vue-flow__pane").click({ position: { x: 10, y: 10 } });
    await page.keyboard.press("Control+Enter");
    const toast = page.locator(".toast.error", { hasText: "Run failed" });
    await poll(() => toast.count(), { timeout: 15_000 }).toBe(1);
    const said = (await toast.textContent()) ?? "";
    expect(said).toContain("Run failed: “Parse JSON” failed: Invalid JSON at line 2, column 7");
    expect(said).not.toContain('"json_parse_1"');
    // The quoted line and its caret on lines of their own, the caret under the "b" of "bad".
    const context = (await toast.getByTestId("toast-context").textContent()) ?? "";
    const [quoted, caret] = context.split("\n");
    expect(quoted).toContain('"b": bad}');
    expect(quoted![caret!.indexOf("^")]).toBe("b");
    expect(await toast.getByTestId("toast-context").evaluate((el) => getComputedStyle(el).whiteSpace)).toBe("pre");

    // The toast's "Jump to node", by keyboard: the node is selected and brought into view.
    await lookElsewhere(page, "json_parse_1");
    expect(await inView(page, "json_parse_1")).toBe(false);
    await toast.getByRole("button", { name: "Jump to node" }).focus();
    await page.keyboard.press("Enter");
    await poll(() => node(page, "json_parse_1").getAttribute("class")).toContain("selected");
    await poll(() => inView(page, "json_parse_1")).toBe(true);
    // The inspector's header names it by title, its id only in the tooltip.
    await poll(() => texts(page, ".inspector-title")).toBe("Parse JSON");
    expect(await page.locator(".inspector-title").getAttribute("title")).toBe("json_parse_1");

    // The run panel: the same words, the id and code as secondary text, and its own "Jump to node".
    const panel = page.getByTestId("run-error");
    expect(await panel.textContent()).toContain("“Parse JSON” failed: Invalid JSON at line 2, column 7");
    expect(await panel.getByTestId("error-ids").textContent()).toBe("json_parse_1 · INVALID_JSON");
    await lookElsewhere(page, "json_parse_1");
    await panel.getByRole("button", { name: "Jump to node" }).click();
    await poll(() => node(page, "json_parse_1").getAttribute("class")).toContain("selected");
    await poll(() => inView(page, "json_parse_1")).toBe(true);

    // The inspector's Run section: the message with its caret block, and "Jump to node".
    const runTab = page.locator(".inspector .segmented button", { hasText: "Run" });
    if (!(await runTab.getAttribute("class"))?.includes("active")) await runTab.click();
    const inspected = page.getByTestId("inspector-error");
    await poll(() => inspected.textContent()).toContain("Invalid JSON at line 2, column 7");
    const block = (await inspected.getByTestId("error-context").textContent()) ?? "";
    expect(block.split("\n")[0]![block.split("\n")[1]!.indexOf("^")]).toBe("b");
    // Still selected (the inspector shows it), but panned out of view.
    await lookElsewhere(page, "json_parse_1", { keepSelection: true });
    expect(await inView(page, "json_parse_1")).toBe(false);
    await inspected.getByRole("button", { name: "Jump to node" }).click();
    await poll(() => inView(page, "json_parse_1")).toBe(true);

    // The Connect… dialog names the node by its title too.
    await page.keyboard.press("Escape");
    await node(page, "json_parse_1").focus();
    await page.keyboard.press("Shift+F10");
    await page.getByRole("menuitem", { name: /^Connect…/ }).click();
    await poll(() => texts(page, "#connect-title")).toBe("Connect “Parse JSON”");
    await page.keyboard.press("Escape");
    // Looking and jumping changed nothing in the workflow.
    expect(await page.locator('.tab.active [data-testid="dirty-marker"]').count()).toBe(0);
  });
});

describe("nothing saved without a decision", () => {
  it("runs a never-saved workflow with Ctrl+Enter as an unsaved draft: no workflow is stored, the list shows no 'Untitled workflow'", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    await page.locator(".vue-flow").first().waitFor();
    const before = await storedNames();
    await page.getByRole("button", { name: "New workflow" }).first().click();
    const tabId = (await page.locator(".tab.active").getAttribute("data-tab-id"))!;
    await page.keyboard.press("/");
    await page.keyboard.type("core:const-text");
    await page.keyboard.press("Enter");
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(1);

    await page.keyboard.press("Control+Enter");
    await poll(() => texts(page, '[data-testid="run-status"]'), { timeout: 15_000 }).toBe("completed");
    // The run is there, under the draft's id; no workflow was created for it.
    const runs = (await weft.read(`/api/runs?workflowId=${tabId}`, RunListSchema)).runs;
    expect(runs.map((r) => r.status)).toEqual(["completed"]);
    expect(await storedNames()).toEqual(before);
    expect((await weft.api("GET", `/api/workflows/${tabId}`)).status).toBe(404);
    // The tab stays an unsaved draft; the workflow list (the palette's skills come from it) has no "Untitled workflow".
    expect(await page.locator('.tab.active [data-testid="dirty-marker"]').count()).toBe(1);
    await page.locator(".sidebar-tabs button", { hasText: "Workflows" }).click();
    await poll(() => page.locator(".workflow-item").count()).toBe(before.length);
    expect(await texts(page, ".workflow-list")).not.toContain("Untitled workflow");
  });

  it("asks for a name on the first save: Escape stores nothing, Enter saves under the name given", async () => {
    const { page } = weft;
    const before = await storedNames();
    await page
      .locator(".vue-flow__pane")
      .first()
      .click({ position: { x: 10, y: 10 } });
    await page.keyboard.press("Control+s");
    const dialog = page.getByRole("dialog", { name: "Save workflow" });
    await poll(() => dialog.count()).toBe(1);
    // The default name is not offered: the field is empty, and OK waits for a name.
    expect(await dialog.locator("input").inputValue()).toBe("");
    expect(await dialog.getByRole("button", { name: "OK" }).isDisabled()).toBe(true);
    await page.keyboard.press("Escape");
    await poll(() => dialog.count()).toBe(0);
    expect(await storedNames()).toEqual(before);

    await page.keyboard.press("Control+s");
    await poll(() => dialog.count()).toBe(1);
    await poll(() => page.evaluate(() => document.activeElement?.classList.contains("prompt-input"))).toBe(true);
    await page.keyboard.type("Order parser");
    await page.keyboard.press("Enter");
    await poll(() => storedNames()).toEqual([...before, "Order parser"].sort());
    await poll(() => page.locator('.tab.active [data-testid="dirty-marker"]').count()).toBe(0);
    expect(await texts(page, ".tab.active")).toContain("Order parser");
    await poll(() => texts(page, ".workflow-list")).toContain("Order parser");
  });
});
