import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../packages/agent-runtime/src/index.ts";
import { texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { addScriptedAgent } from "./support/scripted-agent.ts";
import { useWeft } from "./support/weft.ts";

const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));

let llm: ScriptedLlmServer;
const weft = useWeft({ examplesDir: EXAMPLES, viewport: { width: 1280, height: 800 } }, async () => {
  // The chat's answer, then the case's run of the same message: a different answer, so the saved case fails.
  llm = await startScriptedLlmServer({
    turns: [
      { kind: "text", chunks: ["Forty-two."] },
      { kind: "text", chunks: ["Six times seven."] },
    ],
  });
  await addScriptedAgent(weft, llm, { id: "answerer", name: "Answerer", tools: [] });
});
afterAll(async () => {
  await llm?.stop();
});

describe("agent eval suites in the Agents view", () => {
  it("Save as test case in the chat makes a case; the agent's Evals row runs it and links the case's conversation", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}#/agents`);
    await page.getByTestId("chat-input").fill("What is the answer?");
    await page.getByTestId("chat-send").click();
    await poll(() => page.getByTestId("chat-status").getAttribute("data-status")).toBe("completed");
    const chatId = (await page.getByTestId("agent-chat").getAttribute("data-conversation")) ?? "";

    await page.getByTestId("save-conversation-as-case").getByRole("button", { name: "Save as test case" }).click();
    await poll(() => texts(page, '[data-testid="save-conversation-as-case"]')).toContain("Saved as a case of “Saved conversations” (1 cases).");

    await page.getByTestId("agent-evals").locator("summary").click();
    await poll(() => texts(page, '[data-testid="eval-suite"]')).toContain("Saved conversations (1)");
    await page.getByTestId("agent-evals").getByRole("button", { name: "Run suite" }).click();
    await poll(() => page.locator('[data-testid="eval-run"]').getAttribute("data-status"), { timeout: 60_000 }).toBe("completed");
    expect(await texts(page, '[data-testid="eval-rate-0"]')).toContain("0/1 passed (0%)");

    // "chat" opens the case's own conversation (not the one it was saved from).
    await page.getByTestId("eval-conversation").click();
    await poll(() => page.getByTestId("agent-chat").getAttribute("data-conversation")).not.toBe(chatId);
    await poll(() => texts(page, '[data-testid="chat-answer"]')).toContain("Six times seven.");
  });
});
