import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkflowInput } from "../../packages/types/src/index.ts";
import { node, texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { screenshotFailures, startWeft, type Weft } from "./support/weft.ts";

let weft: Weft;
beforeAll(async () => {
  weft = await startWeft();
  await weft.createWorkflow(greeting);
}, 120_000);
afterAll(async () => weft?.close());
screenshotFailures(() => weft);

/** "ada" → UPPER → "Hi {{0}}". */
const greeting: WorkflowInput = {
  id: "compare-me",
  name: "Compare me",
  nodes: [
    { id: "shout", type: "core:text-transform", position: { x: 0, y: 0 }, config: { case: "upper" }, inputs: { text: "ada" } },
    { id: "greet", type: "core:text-template", position: { x: 340, y: 0 }, config: { template: "Hi {{0}}" } },
  ],
  edges: [{ id: "e1", source: "shout", sourceHandle: "text", target: "greet", targetHandle: "values" }],
};

describe("comparing runs", () => {
  it("shows one node's output in the run shown against an earlier run, as a line diff", async () => {
    const { page } = weft;
    const runOnce = async (n: number) => {
      await page.locator('[data-testid="run"]').click();
      await poll(() => page.locator('[data-testid="run-history"] li').count(), { timeout: 15_000 }).toBe(n);
      await poll(() => texts(page, '[data-testid="run-status"]'), { timeout: 15_000 }).toBe("completed");
    };
    await page.goto(weft.url);
    await page.locator(".sidebar-tabs button", { hasText: "Workflows" }).click();
    await page.locator('.workflow-item[data-workflow-id="compare-me"]').click();
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(2);
    await runOnce(1);
    await node(page, "shout").locator(".port-row.input textarea, .port-row.input input").first().fill("bob");
    await runOnce(2);
    const runs = await weft.api("GET", "/api/runs?workflowId=compare-me");
    const first = runs.body.runs[1].id as string;

    await node(page, "greet").locator(".node-title").click();
    const runTab = page.locator(".inspector .segmented button", { hasText: "Run" });
    if (!(await runTab.getAttribute("class"))?.includes("active")) await runTab.click();
    await page.getByTestId("compare-run").selectOption(first);
    await poll(() => texts(page, '[data-testid="node-run-compare"] .line-remove')).toContain('"Hi ADA"');
    expect(await texts(page, '[data-testid="node-run-compare"] .line-add')).toContain('"Hi BOB"');
  });
});
