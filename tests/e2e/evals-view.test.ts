import { afterAll, describe, expect, it } from "vitest";
import { EvalSuiteSchema } from "../../packages/types/src/index.ts";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../packages/agent-runtime/src/index.ts";
import { ProfileIdAnswerSchema } from "../../apps/backend/src/testing/answers.ts";
import { seriousInBothThemes } from "./support/axe.ts";
import { texts } from "./support/canvas.ts";
import { box, fullyShown } from "./support/geometry.ts";
import { poll } from "./support/poll.ts";
import { notesWorkflow, runToEnd } from "./support/notes.ts";
import { useWeft } from "./support/weft.ts";

const weft = useWeft({ viewport: { width: 1024, height: 700 } });
let llm: ScriptedLlmServer | undefined;
afterAll(async () => {
  await llm?.stop();
});

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

    await page.getByTestId("eval-against").selectOption("1");
    await page.getByTestId("eval-compare").selectOption("2");
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

  it("runs a suite with LLM profile A against profile B, and reads each side's duration, tokens and cost whole at 1024x700", async () => {
    llm = await startScriptedLlmServer();
    // 1,200 prompt tokens (1,000 cached), 340 completion; at $2 / $0.5 / $8 per million: $0.00362.
    const made = await weft.api("POST", "/api/llm-profiles", {
      name: "Scripted",
      baseUrl: llm.baseUrl,
      model: llm.model,
      maxRetries: 0,
      prices: { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 },
    });
    expect(made.status).toBe(201);
    const scripted = ProfileIdAnswerSchema.parse(made.body).profile.id;
    await weft.createWorkflow({
      id: "ask",
      name: "Ask",
      nodes: [
        { id: "topic", type: "core:workflow-input", position: { x: 0, y: 0 }, config: { name: "topic", portType: "string", required: true } },
        { id: "chat", type: "llm:chat", position: { x: 320, y: 0 }, config: {} },
        { id: "out", type: "core:workflow-output", position: { x: 640, y: 0 }, config: { name: "text", portType: "string" } },
      ],
      edges: [
        { id: "e1", source: "topic", sourceHandle: "value", target: "chat", targetHandle: "prompt" },
        { id: "e2", source: "chat", sourceHandle: "text", target: "out", targetHandle: "value" },
      ],
    });
    const cases = [{ id: "greet", name: "greet", inputs: { topic: "Say hi" }, assertions: [{ kind: "contains", output: "text", text: "Scripted" }] }];
    expect((await weft.api("POST", "/api/evals/suites", { name: "Profiles", target: { kind: "workflow", id: "ask" }, cases })).status).toBe(201);
    llm.enqueue({ kind: "text", chunks: ["Scripted hello"], usage: { prompt_tokens: 1200, completion_tokens: 340, cached_tokens: 1000, reasoning_tokens: 300 } });

    const { page } = weft;
    await page.goto(`${weft.url}/#/workflows/ask`);
    await poll(() => page.locator(".tab.active").getAttribute("data-tab-id")).toBe("ask");
    await page.getByRole("tab", { name: "Evals", exact: true }).click();
    await poll(() => texts(page, '[data-testid="eval-suite"]')).toContain("Profiles (1)");
    // Side A: the demo LLM; side B: the scripted one. No version chosen: both run the stored workflow.
    await page.getByTestId("eval-against-profile").selectOption("demo");
    await page.getByTestId("eval-compare-profile").selectOption(scripted);
    await page.getByRole("button", { name: "Run suite" }).focus();
    await page.keyboard.press("Enter");
    await poll(() => page.locator('[data-testid="eval-run"]').getAttribute("data-status"), { timeout: 30_000 }).toBe("completed");
    expect(await texts(page, '[data-testid="eval-rate-0"]')).toContain("latest · demo 0/1 passed");
    expect(await texts(page, '[data-testid="eval-rate-1"]')).toContain(`latest · ${scripted} 1/1 passed`);
    expect(llm.chatBodies()).toHaveLength(1);

    // Durations in a unit, not raw floats; tokens and cost as the rest of the editor writes them.
    const cell = (side: number) => page.locator(`tr[data-case="greet"] td[data-side="${side}"]`);
    expect(await cell(1).getByTestId("eval-usage").innerText()).toBe("1,540 tokens · $0.00362");
    expect(await cell(0).getByTestId("eval-usage").innerText()).toMatch(/^≈? ?[\d,]+ tokens · —$/);
    for (const side of [0, 1]) expect(await cell(side).getByTestId("eval-duration").innerText()).toMatch(/^\d+ ms$|^\d+\.\d{1,2} s$/);

    // Both sides' columns lie whole inside the panel at 1024x700: nothing cut off at its right edge.
    const panel = await box(page.getByTestId("evals-panel"));
    for (const part of [page.locator(".eval-table thead th").nth(2), cell(0), cell(1), cell(1).getByTestId("eval-usage")]) {
      expect(await fullyShown(part)).toBe(true);
      const r = await box(part);
      expect(r.x + r.width).toBeLessThanOrEqual(panel.x + panel.width + 0.5);
    }
    expect(await seriousInBothThemes(page)).toEqual({});
  });
});
