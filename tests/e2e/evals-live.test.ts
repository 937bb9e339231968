import { describe, expect, it } from "vitest";
import { texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { notesWorkflow } from "./support/notes.ts";
import { useWeft } from "./support/weft.ts";

const weft = useWeft({ viewport: { width: 1024, height: 700 } });

/** Issue 33: the Evals tab follows an eval run over the live socket (its eval.progress events), not only by polling. */
describe("the Evals view's live progress", () => {
  it("subscribes to the eval run's stream on /ws, receives its progress events, and shows the finished pass rate", async () => {
    await weft.createWorkflow(notesWorkflow("Notes on {{0}}"));
    const cases = Array.from({ length: 6 }, (_, i) => ({ id: `c${i}`, name: `case ${i}`, inputs: { topic: `t${i}` }, assertions: [{ kind: "equals", output: "text", expected: `Notes on t${i}` }] }));
    expect((await weft.api("POST", "/api/evals/suites", { name: "Live", target: { kind: "workflow", id: "notes" }, cases })).status).toBe(201);

    const { page } = weft;
    const sent: string[] = [];
    const received: string[] = [];
    page.on("websocket", (ws) => {
      ws.on("framesent", (f) => void (typeof f.payload === "string" && sent.push(f.payload)));
      ws.on("framereceived", (f) => void (typeof f.payload === "string" && received.push(f.payload)));
    });
    await page.goto(weft.url);
    await poll(() => page.locator(".tab.active").getAttribute("data-tab-id")).toBe("notes");
    await page.getByRole("tab", { name: "Evals", exact: true }).click();
    await poll(() => texts(page, '[data-testid="eval-suite"]')).toContain("Live (6)");
    await page.getByRole("button", { name: "Run suite" }).click();
    await poll(() => page.locator('[data-testid="eval-run"]').getAttribute("data-status"), { timeout: 60_000 }).toBe("completed");
    expect(await texts(page, '[data-testid="eval-rate-0"]')).toContain("6/6 passed (100%)");

    const evalRunId = await page.evaluate(async () => {
      const res = await fetch("/api/evals/suites", { credentials: "same-origin" });
      const body = (await res.json()) as { suites: Array<{ id: string }> };
      const runs = await fetch(`/api/evals/suites/${body.suites[0].id}/runs?limit=1`, { credentials: "same-origin" });
      return ((await runs.json()) as { runs: Array<{ id: string }> }).runs[0].id;
    });
    expect(sent.some((p) => p.includes('"subscribe"') && p.includes(evalRunId))).toBe(true);
    await poll(() => received.filter((p) => p.includes('"eval.progress"') && p.includes(evalRunId)).length > 0).toBe(true);
  });
});
