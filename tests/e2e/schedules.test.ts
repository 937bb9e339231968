import { describe, expect, it } from "vitest";
import { scheduleWorkflow } from "../../apps/backend/src/testing/schedules.ts";
import { seriousViolations } from "./support/axe.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

// The smallest window the editor supports.
const weft = useWeft({ viewport: { width: 1024, height: 700 } });

describe("schedule triggers", () => {
  it("switches a schedule workflow on from the Triggers tab by keyboard, shows its next fire times, and its runs appear there", async () => {
    await weft.createWorkflow(scheduleWorkflow("e2e-schedule", { cron: "* * * * * *", timezone: "Europe/Berlin" }));
    const { page } = weft;
    await page.goto(weft.url);
    await page.getByRole("tab", { name: "Triggers" }).click();
    const row = page.locator('[data-trigger="e2e-schedule/clock"]');
    await poll(() => row.count()).toBe(1);
    expect(await row.locator(".trigger-cron").textContent()).toContain("* * * * * * · Europe/Berlin");
    expect(await row.getByRole("list", { name: "Next fire times of Schedule e2e-schedule" }).locator("li").count()).toBe(5);
    // A schedule has no secret to rotate.
    expect(await row.getByRole("button", { name: /secret/ }).count()).toBe(0);

    const toggle = row.getByRole("switch");
    expect(await toggle.isChecked()).toBe(false);
    await toggle.focus();
    await page.keyboard.press("Space");
    await poll(() => toggle.isChecked()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    // The tab reads the list again on its own: the first tick's run shows as the last result, and opens as it ran.
    await poll(async () => (await row.textContent()) ?? "", { timeout: 30_000 }).toContain("Fired");
    const last = row.locator("button", { has: page.locator(".pill") });
    await poll(() => last.count()).toBe(1);
    await last.click();
    await poll(async () => (await page.locator(".tab.active").getAttribute("data-tab-id")) ?? "").toMatch(/^run:/);
    await poll(async () => (await page.locator('[data-testid="run-history"] [data-testid="run-trigger"]').first().textContent()) ?? "").toContain("by schedule for");

    // Off again: no more runs start.
    await page.getByRole("tab", { name: "Triggers" }).click();
    await row.getByRole("switch").click();
    await poll(() => row.getByRole("switch").isChecked()).toBe(false);
  });

  it("the schedule node's inspector shows the next five fire times, and a precise error for a bad expression", async () => {
    await weft.createWorkflow(scheduleWorkflow("e2e-inspect", { cron: "0 9 * * 1-5" }));
    const { page } = weft;
    await page.goto(`${weft.url}/#/workflows/e2e-inspect?node=clock`);
    await page.locator(".inspector .segmented button", { hasText: "Settings" }).click();
    const box = page.locator('[data-testid="schedule-box"]');
    await poll(() => box.getByRole("list", { name: "Next fire times" }).locator("li").count()).toBe(5);
    await page.locator(".inspector").getByRole("textbox", { name: "Cron expression" }).fill("61 * * * *");
    await poll(async () => (await box.getByRole("alert").textContent()) ?? "").toMatch(/cron: "61 \* \* \* \*" is not a cron expression .*minute.*e\.g\. `0 9 \* \* 1-5`/);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
