import { describe, expect, it } from "vitest";
import { node, openFromList, texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";
import { greetingWorkflow, runAndWait } from "./support/two-step-run.ts";

const weft = useWeft({}, async () => {
  await weft.createWorkflow(greetingWorkflow("pin-me", "Pin me"));
});

describe("pinned outputs", () => {
  it("pins a node's output from its run, uses it in the next runs whatever its inputs, and unpins it", async () => {
    const { page } = weft;
    const greeted = () => texts(page, '[data-testid="run-outputs"], .vue-flow__node[data-id="greet"] .node-run');
    await page.goto(weft.url);
    await openFromList(page, "pin-me");
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(2);
    await runAndWait(page, 1);

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
    await runAndWait(page, 2);
    await poll(greeted).toContain("Hi ADA");
    expect(await greeted()).not.toContain("BOB");

    await page.getByTestId("unpin-output").click();
    await poll(() => node(page, "shout").locator(".node-pinned").count()).toBe(0);
    await runAndWait(page, 3);
    await poll(greeted).toContain("Hi BOB");
  });
});
