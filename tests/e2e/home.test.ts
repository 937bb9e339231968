import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { RunListSchema } from "../../apps/frontend/src/shared/api/schemas.ts";
import type { Page } from "playwright-core";
import { seriousInBothThemes } from "./support/axe.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

/** The repository's examples: the built-in deliberation workflow, examples, agents and a scene. */
const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));

/** A new browser on a new installation, in a small window. */
const weft = useWeft({ examplesDir: EXAMPLES, home: true, viewport: { width: 1024, height: 700 } }, async () => {
  // The first load builds nothing but waits on a busy machine: room for it, as for every step here.
  weft.page.setDefaultTimeout(30_000);
  await weft.page.goto(weft.url);
});

/** Presses Tab until the focus is on the element with this accessible label (the page used by keyboard only). */
async function tabTo(page: Page, label: string): Promise<void> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press("Tab");
    if ((await page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent?.trim())) === label) return;
  }
  throw new Error(`Tab never reached "${label}"`);
}

describe("Home, the first screen", () => {
  it("a new browser opens on Home, not on the deliberation workflow: what Weft is, New workflow, templates, examples and agents", async () => {
    const { page } = weft;
    await page.getByTestId("home").waitFor();
    expect(await page.evaluate(() => location.hash)).toBe("#/home");
    await expect.poll(() => page.getByTestId("example-card").count(), { timeout: 8000 }).toBeGreaterThan(3);
    expect(await page.getByTestId("template-card").count()).toBe(5);
    expect(await page.getByTestId("agent-card").count()).toBeGreaterThan(0);
    await page.getByTestId("home-new-workflow").waitFor();
    // Only skills are badged "skill"; every card's name can be read whole in its tooltip.
    const examples = page.getByTestId("example-card");
    const badged = await examples.filter({ has: page.locator(".pill", { hasText: "skill" }) }).count();
    expect(badged).toBeGreaterThan(0);
    expect(badged).toBeLessThan(await examples.count());
    for (const h of await page.locator(".home-card h4").all()) expect(await h.getAttribute("title")).toBe(((await h.textContent()) ?? "").trim());
    // Nothing was opened behind it: the editor has no workflow open.
    await page.getByTestId("view-editor").click();
    await page.getByText("No workflow open.").waitFor();
    expect(await page.locator(".tab").count()).toBe(0);
  });

  it("fits a 1024×700 window without sideways scrolling, and has no serious or critical axe finding", async () => {
    const { page } = weft;
    await page.getByTestId("view-home").click();
    await page.getByTestId("home").waitFor();
    await poll(() => page.getByTestId("example-card").count()).toBeGreaterThan(3);
    const overflow = await page.evaluate(() => {
      const home = document.querySelector<HTMLElement>(".home");
      return { home: home ? home.scrollWidth - home.clientWidth : -1, page: document.documentElement.scrollWidth - document.documentElement.clientWidth };
    });
    expect(overflow).toEqual({ home: 0, page: 0 });
    expect(await seriousInBothThemes(page)).toEqual({});
  });

  it("the tour steps on and, dismissed, stays away after a reload", async () => {
    const { page } = weft;
    await page.getByTestId("home-tour").waitFor();
    await page.getByTestId("tour-next").click();
    await page.getByText("Wire your own workflow").waitFor();
    await page.getByTestId("tour-dismiss").click();
    await poll(() => page.getByTestId("home-tour").count()).toBe(0);
    await page.reload();
    await page.getByTestId("home").waitFor();
    await poll(() => page.getByTestId("example-card").count()).toBeGreaterThan(3);
    expect(await page.getByTestId("home-tour").count()).toBe(0);
  });

  it("a template, used by keyboard, opens as a copy with a new id; the original is unchanged", async () => {
    const { page } = weft;
    const before = await weft.storedWorkflow("map-summaries");
    await page.getByTestId("home").waitFor();
    await page.locator("body").focus();
    await tabTo(page, "Use template: Map over a list");
    await page.keyboard.press("Enter");
    await poll(() => page.locator(".tab.active .tab-name").textContent()).toBe(`${before.name} (copy)`);
    const copy = await weft.storedWorkflow("map-summaries-copy");
    expect(copy.name).toBe(`${before.name} (copy)`);
    expect({ nodes: copy.nodes, edges: copy.edges }).toEqual({ nodes: before.nodes, edges: before.edges });
    expect(await weft.storedWorkflow("map-summaries")).toEqual(before);
    // The copy is the user's: editable, no read-only bar.
    expect(await page.getByTestId("built-in-bar").count()).toBe(0);
    expect(await page.evaluate(() => location.hash)).toBe("#/workflows/map-summaries-copy");
  });

  it("the default deliberation workflow opens read-only with Duplicate to edit; the server keeps it as it is", async () => {
    const { page } = weft;
    const before = await weft.storedWorkflow("agent-deliberation");
    await page.getByTestId("view-home").click();
    await page.getByRole("button", { name: "Agent deliberation (default)" }).click();
    await page.getByTestId("built-in-bar").waitFor();
    await poll(() => page.locator(".tab.active .tab-name").textContent()).toBe("Agent deliberation (default)");
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(before.nodes.length);
    // Deleting a node does nothing; Save and Run are off.
    await page.locator(".vue-flow__node-weft").first().click();
    await page.keyboard.press("Delete");
    expect(await page.locator(".vue-flow__node-weft").count()).toBe(before.nodes.length);
    expect(await page.getByTestId("save").isDisabled()).toBe(true);
    expect(await page.getByTestId("run").isDisabled()).toBe(true);
    // The API refuses the owner too; what is stored stays as it was.
    const refused = await weft.api("PUT", "/api/workflows/agent-deliberation", { workflow: { ...before, nodes: [] }, baseRevision: before.revision });
    expect(refused.status).toBe(403);
    expect((await weft.api("DELETE", "/api/workflows/agent-deliberation")).status).toBe(403);
    expect(await weft.storedWorkflow("agent-deliberation")).toEqual(before);
    // Duplicate to edit: a copy of one's own, editable.
    await page.getByTestId("duplicate-to-edit").click();
    await poll(() => page.locator(".tab.active .tab-name").textContent()).toBe("Agent deliberation (default) (copy)");
    expect(await page.getByTestId("built-in-bar").count()).toBe(0);
    expect((await weft.storedWorkflow("agent-deliberation-copy")).nodes).toEqual(before.nodes);
  });

  it("an agent's deliberation run opens read-only, the built-in workflow as it ran, on a tab of its own", async () => {
    const { page } = weft;
    // The demo LLM answers: one message is one deliberation run of the built-in workflow.
    expect((await weft.api("POST", "/api/agents/text-helper/messages", { message: "Hello" })).status).toBeLessThan(300);
    await poll(async () => (await weft.read("/api/runs?workflowId=agent-deliberation&limit=5", RunListSchema)).runs.length, { timeout: 60_000 }).toBeGreaterThan(0);
    const runId = (await weft.read("/api/runs?workflowId=agent-deliberation&limit=5", RunListSchema)).runs[0].id;
    await page.goto(`${weft.url}/#/workflows/agent-deliberation/runs/${runId}`);
    await poll(() => page.locator(".run-banner").getAttribute("data-run-id"), { timeout: 30_000 }).toBe(runId);
    // As every past run: on a tab of its own, read-only, the banner saying whose run it is.
    await page.getByTestId("readonly-banner").waitFor();
    // Read-only: a node's Delete removes nothing.
    const nodes = await page.locator(".vue-flow__node-weft").count();
    await page.locator(".vue-flow__node-weft").first().click();
    await page.keyboard.press("Delete");
    expect(await page.locator(".vue-flow__node-weft").count()).toBe(nodes);
  });
});
