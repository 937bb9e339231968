import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../packages/agent-runtime/src/index.ts";
import { LlmProfileViewSchema } from "../../apps/frontend/src/features/settings/llm-profiles-api.ts";
import { ProfileIdAnswerSchema } from "../../apps/backend/src/testing/answers.ts";
import { runToEnd } from "./support/notes.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

/** The repository's examples: the agent-deliberation workflow the agent thinks with. */
const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));
/** 1,200 prompt tokens (1,000 cached), 340 completion; at $2 / $0.5 / $8 per million: $0.00362. */
const KNOWN = { prompt_tokens: 1200, completion_tokens: 340, cached_tokens: 1000, reasoning_tokens: 300 };
const SHOWN = "1,540 tokens · $0.00362";

let llm: ScriptedLlmServer;
let profileId: string;
const weft = useWeft({ examplesDir: EXAMPLES }, async () => {
  llm = await startScriptedLlmServer();
  const profile = await weft.api("POST", "/api/llm-profiles", {
    name: "priced",
    baseUrl: llm.baseUrl,
    model: llm.model,
    maxRetries: 0,
    prices: { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 },
  });
  expect(profile.status).toBe(201);
  profileId = ProfileIdAnswerSchema.parse(profile.body).profile.id;
  const workflow = {
    id: "ask",
    name: "Ask",
    nodes: [{ id: "chat", type: "llm:chat", position: { x: 0, y: 0 }, config: { profileId }, inputs: { prompt: "Say hi" } }],
    edges: [],
  };
  expect((await weft.api("POST", "/api/workflows", { workflow })).status).toBe(201);
  expect((await weft.api("POST", "/api/agents", { id: "counter", name: "Counter", deliberationWorkflowId: "agent-deliberation", llmProfileId: profileId, tools: [] })).status).toBe(201);
  expect((await weft.api("POST", "/api/scenes", { id: "counting", name: "Counting", agents: [{ instanceId: "counter", profileId: "counter" }] })).status).toBe(201);
});
afterAll(async () => {
  await llm?.stop();
});

const text = (page: Page, testId: string) => page.getByTestId(testId).first().innerText();

describe("tokens and cost in the editor", () => {
  it("shows an LLM call's tokens and cost in the inspector, the run banner and the run history", async () => {
    const { page } = weft;
    llm.enqueue({ kind: "text", chunks: ["Hi!"], usage: KNOWN });
    const runId = await runToEnd(weft, "ask", {});
    await page.goto(`${weft.url}/#/workflows/ask/runs/${runId}`);
    await poll(() => page.locator(".run-banner").getAttribute("data-run-id")).toBe(runId);
    await poll(() => text(page, "run-usage")).toBe(SHOWN);
    // The run history's row too.
    await poll(() => text(page, "history-usage")).toBe(SHOWN);
    await page.locator('.vue-flow__node[data-id="chat"] .node-title').click();
    await poll(() => text(page, "inspector-usage")).toBe(SHOWN);
    // The breakdown is in the tooltip.
    expect(await page.getByTestId("inspector-usage").getAttribute("title")).toContain("prompt 1,200 (cached 1,000)");
  });

  it("shows a step's and the conversation's tokens and cost in the agent chat", async () => {
    const { page } = weft;
    llm.enqueue({ kind: "text", chunks: ["Counted."], usage: KNOWN });
    await page.goto(weft.url);
    await page.getByTestId("view-agents").click();
    await page.locator('.agent-item[data-agent-id="counter"]').click();
    await page.getByTestId("chat-input").fill("Count, please");
    await page.getByTestId("chat-send").click();
    await poll(() => page.getByTestId("chat-answer").count(), { timeout: 20_000 }).toBe(1);
    await poll(() => text(page, "step-usage"), { timeout: 15_000 }).toBe(SHOWN);
    await poll(() => text(page, "chat-usage")).toBe(SHOWN);
  });

  it("shows each agent's and the scene's tokens and cost in the scene view, and — once an owner empties the prices in Settings", async () => {
    const { page } = weft;
    llm.enqueue({ kind: "text", chunks: ["Noted."], usage: KNOWN });
    await page.goto(weft.url);
    await page.getByTestId("view-scenes").click();
    await page.locator('.scene-item[data-scene-id="counting"]').click();
    await poll(() => page.locator('[data-testid="scene-status"]').count()).toBe(1);
    await page.getByTestId("scene-start").click();
    await page.getByTestId("chat-to").selectOption("counter");
    await page.getByTestId("chat-text").fill("Count this");
    await page.getByTestId("chat-send").click();
    await poll(() => text(page, "agent-usage"), { timeout: 20_000 }).toBe(SHOWN);
    await poll(() => text(page, "scene-usage")).toBe(`LLM ${SHOWN}`);
    await poll(() => text(page, "scene-cost-per-step")).toBe("$0.00362 per step");
    await poll(() => text(page, "agent-cost-per-step")).toBe("$0.00362 per step");
    // Per hour of scene time: the session's cost ÷ the scene's running time, which the element carries.
    const perHour = page.getByTestId("scene-cost-per-hour");
    await poll(() => perHour.count(), { timeout: 15_000 }).toBe(1);
    // One read of both: the figure moves on every 5 s while the scene runs.
    const [shownText, runningText] = await perHour.evaluate((el) => [el.textContent?.trim() ?? "", (el as HTMLElement).dataset.runningMs ?? ""]);
    const runningMs = Number(runningText);
    expect(runningMs).toBeGreaterThan(0);
    const shown = /^\$([\d.,]+) per scene hour$/.exec(shownText);
    expect(shown).not.toBeNull();
    const expected = (0.00362 * 3_600_000) / runningMs;
    expect(Math.abs(Number(shown![1]!.replaceAll(",", "")) - expected) / expected).toBeLessThan(0.01);
    expect(await perHour.getAttribute("title")).toContain("running");

    // An owner empties the prices in Settings → LLM profiles: the same call then shows its tokens, and the cost as unknown.
    await page.getByTestId("settings").click();
    const dialog = page.getByTestId("llm-profiles");
    await dialog.locator(`li[data-profile="${profileId}"]`).click();
    await poll(() => page.locator("#lp-outputPerMillion").inputValue()).toBe("8");
    for (const field of ["inputPerMillion", "cachedInputPerMillion", "outputPerMillion"]) await page.locator(`#lp-${field}`).fill("");
    await page.getByTestId("save-profile").click();
    const stored = { parse: (body: unknown) => LlmProfileViewSchema.parse((body as { profile: unknown }).profile) };
    await poll(async () => (await weft.read(`/api/llm-profiles/${profileId}`, stored)).prices).toBeUndefined();
    await page.keyboard.press("Escape");
    llm.enqueue({ kind: "text", chunks: ["Hi!"], usage: KNOWN });
    const runId = await runToEnd(weft, "ask", {});
    await page.goto(`${weft.url}/#/workflows/ask/runs/${runId}`);
    await poll(() => text(page, "run-usage")).toBe("1,540 tokens · —");
  });
});
