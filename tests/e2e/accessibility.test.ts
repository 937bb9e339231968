import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { seriousInBothThemes } from "./support/axe.ts";
import { inspectRun, node } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

/** The repository's examples: workflows, skills, agents and scenes, so every list has rows. */
const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));

const weft = useWeft({ examplesDir: EXAMPLES }, async () => {
  await weft.page.goto(weft.url);
  await weft.page.locator(".vue-flow__node-weft").first().waitFor();
});

const sidebarTab = (page: Page, name: string) => page.locator(".sidebar-tabs button", { hasText: name }).click();
const view = (page: Page, id: string) => page.getByTestId(`view-${id}`).click();

describe("WCAG 2.1 AA (axe-core): no serious or critical finding in either theme", () => {
  it("the editor with the node palette", async () => {
    await sidebarTab(weft.page, "Nodes");
    expect(await seriousInBothThemes(weft.page)).toEqual({});
  });

  it("the workflow list", async () => {
    await sidebarTab(weft.page, "Workflows");
    await poll(() => weft.page.locator(".workflow-item").count()).toBeGreaterThan(0);
    expect(await seriousInBothThemes(weft.page)).toEqual({});
  });

  it("the undo history", async () => {
    await sidebarTab(weft.page, "Undo history");
    expect(await seriousInBothThemes(weft.page)).toEqual({});
  });

  it("the versions and triggers tabs and the approvals inbox", async () => {
    await sidebarTab(weft.page, "Versions");
    expect(await seriousInBothThemes(weft.page)).toEqual({});
    await sidebarTab(weft.page, "Triggers");
    expect(await seriousInBothThemes(weft.page)).toEqual({});
    await weft.page.getByTestId("approvals-inbox").click();
    await poll(() => weft.page.locator("#approvals-inbox-panel").count()).toBe(1);
    expect(await seriousInBothThemes(weft.page)).toEqual({});
    await weft.page.keyboard.press("Escape");
    await poll(() => weft.page.locator("#approvals-inbox-panel").count()).toBe(0);
  });

  it("the inspector of a selected node", async () => {
    const { page } = weft;
    const first = await page.locator(".vue-flow__node-weft").first().getAttribute("data-id");
    await node(page, first ?? "").click();
    await poll(() => page.locator(".inspector select, .inspector input").count()).toBeGreaterThan(0);
    expect(await seriousInBothThemes(page)).toEqual({});
  });

  it("a node's menu and its Connect… dialog", async () => {
    const { page } = weft;
    const first = page.locator(".vue-flow__node-weft").first();
    await first.click({ button: "right" });
    await poll(() => page.getByRole("menu").count()).toBe(1);
    expect(await seriousInBothThemes(page)).toEqual({});
    await page.getByRole("menuitem", { name: "Connect…" }).click();
    await poll(() => page.locator(".connect-dialog").count()).toBe(1);
    expect(await seriousInBothThemes(page)).toEqual({});
    await page.keyboard.press("Escape");
    await poll(() => page.locator(".connect-dialog").count()).toBe(0);
  });

  it("the quick-add dialog", async () => {
    const { page } = weft;
    await page.locator(".vue-flow__pane").dblclick({ position: { x: 40, y: 40 } });
    await poll(() => page.locator(".quick-add").count()).toBe(1);
    expect(await seriousInBothThemes(page)).toEqual({});
    await page.keyboard.press("Escape");
    await poll(() => page.locator(".quick-add").count()).toBe(0);
  });

  it("the keyboard shortcuts sheet", async () => {
    const { page } = weft;
    await page.getByRole("button", { name: "Help" }).click();
    await poll(() => page.locator(".help-panel").count()).toBe(1);
    expect(await seriousInBothThemes(page)).toEqual({});
    await page.keyboard.press("Escape");
    await poll(() => page.locator(".help-panel").count()).toBe(0);
  });

  it("the run dialog of a workflow with inputs", async () => {
    const { page } = weft;
    await sidebarTab(page, "Workflows");
    await page.locator('.workflow-item[data-workflow-id="summarize-skill"]').click();
    await poll(() => page.locator(".tab.active").textContent()).toMatch(/summar/i);
    await page.getByTestId("run").click();
    await poll(() => page.locator(".run-dialog").count()).toBe(1);
    expect(await seriousInBothThemes(page)).toEqual({});
    await page.keyboard.press("Escape");
    await poll(() => page.locator(".run-dialog").count()).toBe(0);
  });

  it("the run history of a workflow that has run", async () => {
    const { page } = weft;
    expect((await weft.api("POST", "/api/workflows/text-pipeline/runs", { inputs: { topic: "looms" } })).status).toBe(202);
    await sidebarTab(page, "Workflows");
    await page.locator('.workflow-item[data-workflow-id="text-pipeline"]').click();
    await poll(() => page.locator('[data-testid="run-history"] li').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await seriousInBothThemes(page)).toEqual({});
  });

  it("the inspector's Run section after a run (its values as a tree)", async () => {
    const { page } = weft;
    await sidebarTab(page, "Workflows");
    await page.locator('.workflow-item[data-workflow-id="text-pipeline"]').click();
    await poll(() => page.locator('.tab.active[data-tab-id="text-pipeline"]').count()).toBe(1);
    await page.getByTestId("run").click();
    await page.locator('.run-dialog [aria-label="topic"]').fill("looms");
    await page.locator('.run-dialog button[type="submit"]').click();
    await poll(() => page.locator('[data-testid="run-status"]').first().textContent(), { timeout: 15_000 }).toMatch(/completed/);
    await inspectRun(page, "tidy");
    // Strings are drawn in the tree (the input and the output): their colour is what axe weighs.
    await poll(() => page.locator('[data-testid="node-run-details"] .json-value.string').count()).toBeGreaterThan(0);
    expect(await seriousInBothThemes(page)).toEqual({});
  });

  it("a confirmation", async () => {
    const { page } = weft;
    await sidebarTab(page, "Workflows");
    // The first workflow that offers Delete (a built-in workflow offers none).
    const deletable = page.locator(".workflow-item").filter({ has: page.getByRole("button", { name: /^Delete/ }) });
    await deletable
      .first()
      .getByRole("button", { name: /^Delete/ })
      .click();
    await poll(() => page.getByRole("alertdialog").count()).toBe(1);
    expect(await seriousInBothThemes(page)).toEqual({});
    await page.getByRole("alertdialog").getByRole("button", { name: "Cancel" }).click();
  });

  it("the settings dialog", async () => {
    const { page } = weft;
    await page.getByTestId("settings").click();
    await poll(() => page.locator(".settings-dialog").count()).toBe(1);
    expect(await seriousInBothThemes(page)).toEqual({});
    await page.keyboard.press("Escape");
    await poll(() => page.locator(".settings-dialog").count()).toBe(0);
  });

  it("the scenes view", async () => {
    await view(weft.page, "scenes");
    await poll(() => weft.page.getByTestId("SceneView").count()).toBe(1);
    expect(await seriousInBothThemes(weft.page)).toEqual({});
  });

  it("the agents view", async () => {
    await view(weft.page, "agents");
    await poll(() => weft.page.getByTestId("AgentsView").count()).toBe(1);
    expect(await seriousInBothThemes(weft.page)).toEqual({});
  });

  it("the Builder", async () => {
    await view(weft.page, "builder");
    await poll(() => weft.page.getByTestId("BuilderWorkbench").count()).toBe(1);
    expect(await seriousInBothThemes(weft.page)).toEqual({});
  });

  it("the sign-in dialog", async () => {
    const { page, context } = weft;
    await context.clearCookies();
    await page.reload();
    await poll(() => page.locator(".sign-in").count()).toBe(1);
    expect(await seriousInBothThemes(page)).toEqual({});
  });
});
