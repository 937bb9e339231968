import { describe, expect, it } from "vitest";
import { node, texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { seriousViolations } from "./support/axe.ts";
import { useWeft } from "./support/weft.ts";
import { greetingWorkflow } from "./support/two-step-run.ts";
import { RunListSchema, StartRunSchema } from "../../apps/frontend/src/shared/api/schemas.ts";

const weft = useWeft({ viewport: { width: 1024, height: 700 } }, async () => {
  await weft.createWorkflow(greetingWorkflow("fork-me", "Fork me"));
});

describe("forking a past run from the editor", () => {
  it("Fork from here… on a past run's node runs the fork, which opens with the changed node highlighted and compared with its parent", async () => {
    const { page } = weft;
    const started = await weft.api("POST", "/api/workflows/fork-me/runs", { inputs: {} });
    const parent = StartRunSchema.parse(started.body).runId;
    await poll(async () => (await weft.read("/api/runs?workflowId=fork-me", RunListSchema)).runs[0]?.status, { timeout: 15_000 }).toBe("completed");

    await page.goto(`${weft.url}#/workflows/fork-me/runs/${parent}?node=greet`);
    await poll(() => page.getByTestId("readonly-banner").count(), { timeout: 15_000 }).toBe(1);
    await node(page, "greet").locator(".node-title").click();
    const runTab = page.locator(".inspector .segmented button", { hasText: "Run" });
    if (!(await runTab.getAttribute("class"))?.includes("active")) await runTab.click();

    // Keyboard only from here: the button, the form's fields, and Run from here.
    await page.getByTestId("fork-from-here").focus();
    await page.keyboard.press("Enter");
    await page.getByTestId("fork-settings").fill('{ "template": "Bye {{0}}" }');
    await page.getByTestId("fork-run").focus();
    await page.keyboard.press("Enter");

    // The fork opens on its own tab: its banner names the parent and highlights the one node whose output differs.
    await poll(() => page.getByTestId("fork-banner").count(), { timeout: 15_000 }).toBe(1);
    await poll(() => page.getByTestId("fork-changed").count(), { timeout: 15_000 }).toBe(1);
    const runs = (await weft.read("/api/runs?workflowId=fork-me", RunListSchema)).runs;
    expect(runs[0].forkOf).toEqual({ runId: parent, nodeId: "greet" });
    expect(await page.locator(".tab.active").getAttribute("data-tab-id")).toBe(`run:${runs[0].id}`);

    await page.getByTestId("fork-changed").click();
    await node(page, "greet").locator(".node-title").click();
    const forkRunTab = page.locator(".inspector .segmented button", { hasText: "Run" });
    if (!(await forkRunTab.getAttribute("class"))?.includes("active")) await forkRunTab.click();
    await poll(() => texts(page, '[data-testid="node-run-compare"] .line-remove'), { timeout: 15_000 }).toContain('"Hi ADA"');
    expect(await texts(page, '[data-testid="node-run-compare"] .line-add')).toContain('"Bye ADA"');

    // The unchanged node came from the parent's record.
    await node(page, "shout").locator(".node-title").click();
    await poll(() => texts(page, ".inspector .pill.cached")).toContain("recorded in the parent run");
    expect(await seriousViolations(page)).toEqual([]);
  });
});
