import { describe, expect, it } from "vitest";
import { EvalSuiteSchema } from "../../packages/types/src/index.ts";
import { seriousInBothThemes } from "./support/axe.ts";
import { texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { notesWorkflow, runToEnd } from "./support/notes.ts";
import { useWeft } from "./support/weft.ts";

const weft = useWeft({ viewport: { width: 1024, height: 700 } });

describe("the Evals view", () => {
  it("runs a suite on two versions side by side, by keyboard: pass rates, the case that differs, expected vs actual, links to the runs", async () => {
    await weft.createWorkflow(notesWorkflow("Notes on {{0}}"));
    expect((await weft.api("PUT", "/api/workflows/notes", { workflow: notesWorkflow("Memo about {{0}}"), baseRevision: 1 })).status).toBe(200);
    const cases = [
      { id: "apples", name: "apples", inputs: { topic: "apples" }, assertions: [{ kind: "equals", output: "text", expected: "Notes on apples" }] },
      { id: "pears", name: "pears", inputs: { topic: "pears" }, assertions: [{ kind: "contains", output: "text", text: "pears" }] },
    ];
    expect((await weft.api("POST", "/api/evals/suites", { name: "Regression", target: { kind: "workflow", id: "notes" }, cases })).status).toBe(201);

    const { page } = weft;
    await page.goto(weft.url);
    await poll(() => page.locator(".tab.active").getAttribute("data-tab-id")).toBe("notes");
    await page.getByRole("tab", { name: "Evals", exact: true }).click();
    await poll(() => texts(page, '[data-testid="eval-suite"]')).toContain("Regression (2)");

    await page.getByLabel("Version", { exact: true }).selectOption("1");
    await page.getByLabel("Compare with").selectOption("2");
    await page.getByRole("button", { name: "Run suite" }).focus();
    await page.keyboard.press("Enter");
    await poll(() => page.locator('[data-testid="eval-run"]').getAttribute("data-status"), { timeout: 30_000 }).toBe("completed");
    expect(await texts(page, '[data-testid="eval-rate-0"]')).toContain("v1 2/2 passed (100%)");
    expect(await texts(page, '[data-testid="eval-rate-1"]')).toContain("v2 1/2 passed (50%)");
    // The case the versions disagree on is marked; its runs are linked.
    expect(await page.locator("tr.differs").getAttribute("data-case")).toBe("apples");
    expect(await page.locator('tr[data-case="apples"] td[data-side="1"]').getAttribute("data-pass")).toBe("false");
    expect(await page.locator('tr[data-case="apples"] a').count()).toBe(2);
    expect(await page.locator('tr[data-case="apples"] a').first().getAttribute("href")).toMatch(/^#\/workflows\/notes\/runs\//);

    // Its details show expected vs actual as a diff.
    await page.getByRole("button", { name: "apples" }).focus();
    await page.keyboard.press("Enter");
    await poll(() => texts(page, '[data-testid="eval-run"] .text-diff')).toContain("Memo about apples");
    expect(await texts(page, '[data-testid="eval-run"] .text-diff')).toContain("Notes on apples");
    const panel = await page.locator('[data-testid="evals-panel"]').boundingBox();
    expect(panel && panel.y + panel.height <= 700 && panel.x + panel.width <= 1024).toBe(true);
    expect(await seriousInBothThemes(page)).toEqual({});

    // "Save as test case" on a run in the run panel: one click adds its inputs and outputs to the suite.
    const runId = await runToEnd(weft, "notes", { topic: "figs" });
    await page.locator('.run-history button[title="Refresh"]').click();
    await poll(() => page.locator(`[data-testid="run-history"] li[data-run-id="${runId}"]`).count()).toBe(1);
    await page.locator(`[data-testid="run-history"] li[data-run-id="${runId}"] button.row-main`).click();
    await page.getByRole("button", { name: "Save as test case" }).click();
    await poll(() => texts(page, '[data-testid="save-as-case"]')).toContain("(3 cases)");
    const listed = (await weft.api("GET", "/api/evals/suites?workflowId=notes")).body as { suites?: unknown };
    const stored = EvalSuiteSchema.array().parse(listed.suites)[0];
    expect(stored.cases.at(-1)).toMatchObject({ inputs: { topic: "figs" }, assertions: [{ kind: "equals", expected: { text: "Memo about figs" } }] });
  });
});
