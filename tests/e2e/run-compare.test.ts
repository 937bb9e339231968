import { describe, expect, it } from "vitest";
import { node, openFromList, texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";
import { greetingWorkflow, runAndWait } from "./support/two-step-run.ts";
import { RunListSchema } from "../../apps/frontend/src/shared/api/schemas.ts";

const weft = useWeft({}, async () => {
  await weft.createWorkflow(greetingWorkflow("compare-me", "Compare me"));
});

describe("comparing runs", () => {
  it("shows one node's output in the run shown against an earlier run, as a line diff", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    await openFromList(page, "compare-me");
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(2);
    await runAndWait(page, 1);
    await node(page, "shout").locator(".port-row.input textarea, .port-row.input input").first().fill("bob");
    await runAndWait(page, 2);
    const runs = await weft.read("/api/runs?workflowId=compare-me", RunListSchema);
    const first = runs.runs[1].id;

    await node(page, "greet").locator(".node-title").click();
    const runTab = page.locator(".inspector .segmented button", { hasText: "Run" });
    if (!(await runTab.getAttribute("class"))?.includes("active")) await runTab.click();
    await page.getByTestId("compare-run").selectOption(first);
    await poll(() => texts(page, '[data-testid="node-run-compare"] .line-remove')).toContain('"Hi ADA"');
    expect(await texts(page, '[data-testid="node-run-compare"] .line-add')).toContain('"Hi BOB"');
  });
});
