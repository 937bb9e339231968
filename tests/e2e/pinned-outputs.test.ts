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
  id: "pin-me",
  name: "Pin me",
  nodes: [
    { id: "shout", type: "core:text-transform", position: { x: 0, y: 0 }, config: { case: "upper" }, inputs: { text: "ada" } },
    { id: "greet", type: "core:text-template", position: { x: 340, y: 0 }, config: { template: "Hi {{0}}" } },
  ],
  edges: [{ id: "e1", source: "shout", sourceHandle: "text", target: "greet", targetHandle: "values" }],
};

describe("pinned outputs", () => {
  it("pins a node's output from its run, uses it in the next runs whatever its inputs, and unpins it", async () => {
    const { page } = weft;
    const runOnce = async (n: number) => {
      await page.locator('[data-testid="run"]').click();
      await poll(() => page.locator('[data-testid="run-history"] li').count(), { timeout: 15_000 }).toBe(n);
      await poll(() => texts(page, '[data-testid="run-status"]'), { timeout: 15_000 }).toBe("completed");
    };
    const greeted = () => texts(page, '[data-testid="run-outputs"], .vue-flow__node[data-id="greet"] .node-run');
    await page.goto(weft.url);
    await page.locator(".sidebar-tabs button", { hasText: "Workflows" }).click();
    await page.locator('.workflow-item[data-workflow-id="pin-me"]').click();
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(2);
    await runOnce(1);

    await node(page, "shout").locator(".node-title").click();
    const runTab = page.locator(".inspector .segmented button", { hasText: "Run" });
    if (!(await runTab.getAttribute("class"))?.includes("active")) await runTab.click();
    await page.getByTestId("pin-output").click();
    // Shown on the node and in the inspector.
    await poll(() => node(page, "shout").locator(".node-pinned").count()).toBe(1);
    expect(await texts(page, '[data-testid="pinned-outputs"]')).toContain('"ADA"');

    // A new input is not computed: the pinned output goes on.
    await page.locator(".inspector .segmented button", { hasText: "Settings" }).click();
    await node(page, "shout").locator(".port-row.input textarea, .port-row.input input").first().fill("bob");
    await runOnce(2);
    await poll(greeted).toContain("Hi ADA");
    expect(await greeted()).not.toContain("BOB");

    await page.getByTestId("unpin-output").click();
    await poll(() => node(page, "shout").locator(".node-pinned").count()).toBe(0);
    await runOnce(3);
    await poll(greeted).toContain("Hi BOB");
  });
});
