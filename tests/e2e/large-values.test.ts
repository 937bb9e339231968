import { describe, expect, it } from "vitest";
import { node, openFromList, texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";
import { runAndWait } from "./support/two-step-run.ts";

/** One code node whose result is ~100 KB of text: over the 64 KB from which values are sent as previews. */
const weft = useWeft({}, async () => {
  await weft.createWorkflow({
    id: "big-text",
    name: "Big text",
    nodes: [{ id: "code", type: "code:javascript", position: { x: 0, y: 0 }, inputs: { code: 'return "line of text\\n".repeat(8000) + "THE END";' } }],
    edges: [],
  });
});

describe("large values in the inspector", () => {
  it("shows a 100 KB output's size and start, loads it whole on request, and pins only whole values", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    await openFromList(page, "big-text");
    await runAndWait(page, 1);
    await node(page, "code").locator(".node-title").click();
    const runTab = page.locator(".inspector .segmented button", { hasText: "Run" });
    if (!(await runTab.getAttribute("class"))?.includes("active")) await runTab.click();

    await poll(() => texts(page, '[data-testid="inspector-outputs"] [data-testid="large-value"]')).toContain("result is 109.4 KB: the start of it is shown");
    expect(await page.getByTestId("pin-output").isDisabled()).toBe(true);
    expect(await texts(page, '[data-testid="inspector-outputs"]')).not.toContain("THE END");

    await page.getByTestId("load-whole-result").click();
    await poll(() => page.locator('[data-testid="inspector-outputs"] [data-testid="large-value"]').count()).toBe(0);
    expect(await page.getByTestId("pin-output").isDisabled()).toBe(false);
  });
});
