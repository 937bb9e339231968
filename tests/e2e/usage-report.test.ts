import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { UsageReportSchema } from "../../apps/backend/src/usage/usage-schemas.ts";
import { seriousInBothThemes } from "./support/axe.ts";
import { inViewport } from "./support/geometry.ts";
import { runToEnd } from "./support/notes.ts";
import { poll } from "./support/poll.ts";
import { openSettingsTab } from "./support/settings.ts";
import { useWeft } from "./support/weft.ts";

const weft = useWeft({ viewport: { width: 1024, height: 700 } });

describe("Settings → Usage", () => {
  it("reports a run's LLM tokens by day and by workflow, by keyboard, and downloads them as CSV", async () => {
    // One LLM call through the demo LLM (the default profile).
    await weft.createWorkflow({ id: "say-hi", name: "Say hi", nodes: [{ id: "chat", type: "llm:chat", position: { x: 0, y: 0 }, config: {}, inputs: { prompt: "Say hi" } }], edges: [] });
    const runId = await runToEnd(weft, "say-hi", {});
    const { total } = await weft.read(`/api/usage?runId=${runId}`, UsageReportSchema);
    expect(total.totalTokens).toBeGreaterThan(0);
    const tokens = `${total.estimatedCalls > 0 ? "≈ " : ""}${total.totalTokens.toLocaleString("en-US")} tokens`;

    const { page } = weft;
    await page.goto(weft.url);
    const report = await openSettingsTab(page, "usage", "usage-report");
    // By day (the default): today's row holds the run's tokens and its one call.
    const rows = report.getByTestId("usage-row");
    await poll(() => rows.count()).toBe(1);
    expect(await rows.first().getByTestId("usage-row-tokens").innerText()).toBe(tokens);
    expect(await rows.first().innerText()).toContain(new Date().toISOString().slice(0, 10));

    // Group by workflow too, by keyboard.
    await report.getByTestId("usage-group-workflow").focus();
    await page.keyboard.press("Space");
    await poll(() => report.locator("thead").innerText()).toContain("Workflow");
    await poll(() => rows.first().innerText()).toContain("say-hi");

    // Everything fits the window, and axe finds nothing serious.
    for (const part of [report.getByTestId("usage-table"), report.getByTestId("usage-csv"), report.getByTestId("usage-to")]) expect(await inViewport(part)).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024);
    expect(await seriousInBothThemes(page)).toEqual({});

    // The CSV: the same grouping, one line for the run's day and workflow.
    await report.getByTestId("usage-csv").focus();
    const [download] = await Promise.all([page.waitForEvent("download"), page.keyboard.press("Enter")]);
    expect(download.suggestedFilename()).toBe("weft-usage.csv");
    const csv = readFileSync(await download.path(), "utf8")
      .trim()
      .split("\r\n");
    expect(csv[0]).toBe("day,workflow,calls,promptTokens,completionTokens,cachedTokens,reasoningTokens,totalTokens,costUsd,unpricedCalls,estimatedCalls");
    expect(csv).toHaveLength(2);
    expect(csv[1]).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2},say-hi,1,\\d+,\\d+,\\d+,\\d+,${total.totalTokens},`));
  });

  it("shows a viewer the Usage tab with their own calls only: none of the owner's run", async () => {
    expect((await weft.api("POST", "/api/users", { username: "vic", role: "viewer", password: "vic's password" })).status).toBe(201);
    await weft.context.clearCookies();
    const res = await fetch(`${weft.url}/api/auth/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "vic", password: "vic's password" }) });
    expect(res.status).toBe(200);
    const cookie = /^weft_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1] ?? "";
    await weft.context.addCookies([{ name: "weft_session", value: cookie, url: weft.url, httpOnly: true, sameSite: "Strict" }]);
    const { page } = weft;
    await page.goto(weft.url);
    await poll(() => page.getByTestId("user-menu").getAttribute("aria-label")).toContain("vic");
    const report = await openSettingsTab(page, "usage", "usage-report");
    await poll(() => report.getByTestId("usage-table").innerText()).toContain("No LLM calls in these days.");
    expect(await report.innerText()).toContain("your own runs and conversations");
    expect(await report.getByTestId("usage-row").count()).toBe(0);
  });
});
