import { afterAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../packages/agent-runtime/src/index.ts";
import { ProfileIdAnswerSchema, StartedRunSchema } from "../../apps/backend/src/testing/answers.ts";
import { RunAnswerSchema } from "../../apps/backend/src/testing/test-server.ts";
import { PrincipalSchema } from "../../apps/frontend/src/features/account/accounts-api.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

/** GET /api/auth/session: who the browser and `weft.api` act for. */
const SessionSchema = { parse: (body: unknown) => PrincipalSchema.parse((body as { principal?: unknown }).principal) };

let llm: ScriptedLlmServer;
let userId: string;
const weft = useWeft({}, async () => {
  llm = await startScriptedLlmServer();
  const profile = await weft.api("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
  expect(profile.status).toBe(201);
  const profileId = ProfileIdAnswerSchema.parse(profile.body).profile.id;
  // Its answer may be 200 tokens long: more than the workflow's budget of 100 allows, less than the user's 5,000.
  const workflow = { id: "ask", name: "Ask", nodes: [{ id: "chat", type: "llm:chat", position: { x: 0, y: 0 }, config: { profileId, maxTokens: 200 }, inputs: { prompt: "Say hi" } }], edges: [] };
  expect((await weft.api("POST", "/api/workflows", { workflow })).status).toBe(201);
  userId = (await weft.read("/api/auth/session", SessionSchema)).userId;
});
afterAll(async () => {
  await llm?.stop();
});

describe("budgets in the editor", () => {
  it("an owner sets a user's daily budget and a workflow's narrower one under Settings → Budgets; a run then stops with budget_exceeded and its header says which budget and how to raise it", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    await page.getByTestId("settings").click();
    await page.getByTestId("settings-tab-budgets").click();
    const editor = page.getByTestId("budgets-settings");
    const set = async (target: string, id: string, tokens: string) => {
      await editor.getByTestId("budget-target").selectOption(target);
      await editor.getByTestId("budget-id").fill(id);
      await editor.getByTestId("budget-tokens").fill(tokens);
      await editor.getByTestId("budget-save").click();
      await poll(() => editor.getByTestId(`budget-${target}-${id}`).count()).toBe(1);
    };
    await set("user", userId, "5000");
    await set("workflow", "ask", "100");
    expect(await editor.getByTestId(`budget-user-${userId}`).innerText()).toContain("5,000 tokens");
    expect(await editor.getByTestId("budget-workflow-ask").innerText()).toContain("100 tokens");
    await page.keyboard.press("Escape");

    const started = await weft.api("POST", "/api/workflows/ask/runs", {});
    expect(started.status).toBe(202);
    const { runId } = StartedRunSchema.parse(started.body);
    await poll(async () => (await weft.read(`/api/runs/${runId}`, RunAnswerSchema)).run, { timeout: 30_000 }).toMatchObject({ status: "budget_exceeded", error: { code: "BUDGET_EXCEEDED" } });
    // Refused before it was sent: the LLM server was never asked.
    expect(llm.chatBodies()).toHaveLength(0);

    await page.goto(`${weft.url}/#/workflows/ask/runs/${runId}`);
    await poll(() => page.locator(".run-banner").getAttribute("data-run-id")).toBe(runId);
    const header = page.locator(".run-banner");
    await poll(() => header.innerText()).toContain('token budget is 100 (set by workflow "ask")');
    expect(await header.innerText()).toContain("Settings → Budgets");
  });
});
