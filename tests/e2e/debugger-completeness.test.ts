import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import type { WorkflowInput } from "../../packages/types/src/index.ts";
import { inspectRun, node, openFromList, texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

/** The repository's examples: the calculator agent answers "multiply" with one core:math tool call. */
const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));

const weft = useWeft({ examplesDir: EXAMPLES }, async () => {
  await weft.createWorkflow(chain);
});

/** "ada" → UPPER → "Hi {{0}}": the second run takes both from the cache. */
const chain: WorkflowInput = {
  id: "cached-chain",
  name: "Cached chain",
  nodes: [
    { id: "shout", type: "core:text-transform", position: { x: 0, y: 0 }, config: { case: "upper" }, inputs: { text: "ada" } },
    { id: "greet", type: "core:text-template", position: { x: 340, y: 0 }, config: { template: "Hi {{0}}" } },
  ],
  edges: [{ id: "e1", source: "shout", sourceHandle: "text", target: "greet", targetHandle: "values" }],
};

const status = (page: Page, id: string) => node(page, id).locator(".weft-node").getAttribute("data-status", { timeout: 2000 });

describe("the debugger shows what every node got", () => {
  it("shows the inputs a cached node was computed from, in the live run", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    await openFromList(page, "cached-chain");
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(2);
    for (let run = 0; run < 2; run++) {
      await page.locator('[data-testid="run"]').click();
      await poll(() => page.locator('[data-testid="run-history"] li').count(), { timeout: 15_000 }).toBe(run + 1);
      await poll(() => texts(page, '[data-testid="run-status"]'), { timeout: 15_000 }).toBe("completed");
    }
    expect(await status(page, "greet")).toBe("cached");
    await inspectRun(page, "greet");
    await poll(() => texts(page, '[data-testid="inspector-status"]')).toBe("cached");
    // Its input is the upstream text, not an empty object.
    await poll(() => texts(page, '[data-testid="inspector-inputs"]')).toContain('"ADA"');
    await inspectRun(page, "shout");
    await poll(() => texts(page, '[data-testid="inspector-inputs"]')).toContain('"ada"');
  });

  it("draws an agent's atomic tool call as its one node, with the inputs it got", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/agents`);
    await page.locator('.agent-item[data-agent-id="calculator"]').click();
    await page.getByTestId("chat-input").fill("multiply a: 6 by b: 7");
    await page.getByTestId("chat-send").click();
    await poll(() => texts(page, '[data-testid="chat-answer"]'), { timeout: 15_000 }).toContain("42");
    const errorsBefore = await page.locator(".toast.error").count();
    await page.locator('[data-testid="trace-step"][data-step="1"] [data-testid="open-action-run"]').click();
    await poll(() => page.locator('.weft-node[data-status="completed"]').count()).toBe(1);
    // No "not found" on the way: the run's own graph is drawn, not a stored workflow looked up.
    expect(await page.locator(".toast.error").count()).toBe(errorsBefore);
    const math = page.locator(".vue-flow__node-weft").first();
    // The node carries the inputs the agent gave it, on the canvas and in the run tab.
    expect(await math.locator(".port-row.input input").evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value))).toEqual(expect.arrayContaining(["6", "7"]));
    await math.locator(".node-title").click();
    const runTab = page.locator(".inspector .segmented button", { hasText: "Run" });
    if (!(await runTab.getAttribute("class"))?.includes("active")) await runTab.click();
    await poll(() => texts(page, '[data-testid="inspector-inputs"]')).toMatch(/"?a"?[^\n]*6/);
    expect(await texts(page, '[data-testid="inspector-inputs"]')).toContain("7");
  });
});
