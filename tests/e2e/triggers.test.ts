import { describe, expect, it } from "vitest";
import { hookWorkflow } from "../../apps/backend/src/testing/webhooks.ts";
import { seriousViolations } from "./support/axe.ts";
import { node } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

// The smallest window the editor supports.
const weft = useWeft({ viewport: { width: 1024, height: 700 } });

describe("triggers", () => {
  it("switches a webhook workflow on from the Triggers tab, by keyboard; a request with the secret shown once starts a run that appears there", async () => {
    await weft.createWorkflow(hookWorkflow("e2e-hook", { path: "orders/new", auth: "token" }));
    const { page } = weft;
    await page.goto(weft.url);
    await page.getByRole("tab", { name: "Triggers" }).click();
    const row = page.locator('[data-trigger="e2e-hook/hook"]');
    await poll(() => row.count()).toBe(1);
    expect(await row.locator(".trigger-url").textContent()).toContain("POST /hooks/e2e-hook/orders/new");

    const toggle = row.getByRole("switch");
    expect(await toggle.isChecked()).toBe(false);
    await toggle.focus();
    await page.keyboard.press("Space");
    await poll(() => toggle.isChecked()).toBe(true);
    const secret = (await row.locator('[data-testid="hook-secret"]').textContent())?.trim() ?? "";
    expect(secret).toMatch(/^whsec_/);
    expect(await seriousViolations(page)).toEqual([]);

    const res = await fetch(`${weft.url}/hooks/e2e-hook/orders/new`, {
      method: "POST",
      body: JSON.stringify({ name: "Browser" }),
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    });
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };

    // Dismissed, the secret is gone from the page; the run shows as the hook's last result, and opens as it ran.
    await row.getByRole("button", { name: "Done" }).click();
    expect(await row.locator('[data-testid="hook-secret"]').count()).toBe(0);
    await page.getByRole("button", { name: "Refresh the triggers" }).click();
    const last = row.getByRole("button", { name: new RegExp(runId.slice(-8)) });
    await poll(() => last.count()).toBe(1);
    await poll(async () => (await row.textContent()) ?? "").toContain("Fired");
    await last.click();
    await poll(() => page.locator(".tab.active").getAttribute("data-tab-id")).toBe(`run:${runId}`);
    await poll(() => page.locator(`[data-testid="run-history"] li[data-run-id="${runId}"] [data-testid="run-trigger"]`).textContent()).toContain("by webhook orders/new");

    // The hook node's inspector (here on the run's read-only tab) shows where it answers.
    await node(page, "hook").click();
    await page.locator(".inspector .segmented button", { hasText: "Settings" }).click();
    await poll(async () => (await page.locator('[data-testid="webhook-box"]').textContent()) ?? "").toContain("/hooks/e2e-hook/orders/new");

    // Off again: the hook answers 404 and stores nothing.
    await page.getByRole("tab", { name: "Triggers" }).click();
    await row.getByRole("switch").click();
    await poll(() => row.getByRole("switch").isChecked()).toBe(false);
    const refused = await fetch(`${weft.url}/hooks/e2e-hook/orders/new`, { method: "POST", body: "{}", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" } });
    expect(refused.status).toBe(404);
  });
});
