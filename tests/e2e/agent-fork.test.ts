import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../packages/agent-runtime/src/index.ts";
import { texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { seriousViolations } from "./support/axe.ts";
import { addScriptedAgent, saveAgentVersion } from "./support/scripted-agent.ts";
import { useWeft } from "./support/weft.ts";
import { ConversationAnswerSchema } from "../../apps/backend/src/testing/answers.ts";

const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));
const transform = (text: string) => `Transforming.\n<ACTION>\n  <core_text_transform>\n    <text>${text}</text>\n  </core_text_transform>\n</ACTION>`;

let llm: ScriptedLlmServer;
const weft = useWeft({ examplesDir: EXAMPLES, viewport: { width: 1024, height: 700 } }, async () => {
  // Two tool steps and the answer; then the fork's one live step, which answers.
  llm = await startScriptedLlmServer({
    turns: [
      { kind: "text", chunks: [transform("one")] },
      { kind: "text", chunks: [transform("two")] },
      { kind: "text", chunks: ["Both done."] },
      { kind: "text", chunks: ["The fork's own answer."] },
    ],
  });
  await addScriptedAgent(weft, llm, { id: "echoer", name: "Echoer", tools: ["core:text-transform"] });
});
afterAll(async () => {
  await llm?.stop();
});

describe("forking an agent conversation from the chat", () => {
  it("Fork from here… with an edited observation on version 1 of the profile opens the fork with its banner; the parent lists it", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}#/agents`);
    await page.locator('.agent-item[data-agent-id="echoer"]').click();
    await page.getByTestId("chat-input").fill("Transform one and two.");
    await page.getByTestId("chat-send").click();
    await poll(() => texts(page, '[data-testid="chat-answer"]'), { timeout: 20_000 }).toContain("Both done.");
    await poll(() => page.getByTestId("chat-status").getAttribute("data-status")).toBe("completed");
    const parentId = (await page.getByTestId("agent-chat").getAttribute("data-conversation")) ?? "";

    await saveAgentVersion(weft, "echoer", { persona: "PERSONA-TWO: you echo differently." });
    // Keyboard only: the step's button, the dialog's observation field, and Fork and continue.
    const step2 = page.locator('[data-testid="chat-items"] [data-testid="trace-step"][data-step="2"]');
    await step2.getByTestId("step-fork").focus();
    await page.keyboard.press("Enter");
    await poll(() => page.getByTestId("step-fork-dialog").count()).toBe(1);
    expect(await page.getByTestId("step-fork-observation").evaluate((el) => el === document.activeElement)).toBe(true);
    await page.getByTestId("step-fork-observation").fill("Observation: EDITED in the browser");
    // The profile's versions, newest first, after "The current profile": two steps down is version 1.
    const version = page.getByTestId("step-fork-version");
    await poll(() => version.locator("option").count()).toBe(3);
    await version.focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    expect(await version.inputValue()).toBe("1");
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByTestId("step-fork-submit").focus();
    await page.keyboard.press("Enter");

    // The fork opens as its own conversation: the banner names the step and the parent; the loop went on live.
    await poll(() => page.getByTestId("chat-fork-banner").count(), { timeout: 15_000 }).toBe(1);
    expect(await page.getByTestId("chat-fork-banner").textContent()).toContain("Forked from step 2 of");
    await poll(() => texts(page, '[data-testid="chat-answer"]'), { timeout: 20_000 }).toContain("The fork's own answer.");
    const forkId = (await page.getByTestId("agent-chat").getAttribute("data-conversation")) ?? "";
    expect(forkId).not.toBe(parentId);
    expect(await page.locator('[data-testid="chat-items"] [data-testid="trace-step"][data-step="2"] [data-testid="trace-observation"]').textContent()).toContain("Observation: EDITED in the browser");
    const fork = await weft.read(`/api/conversations/${forkId}`, ConversationAnswerSchema);
    expect(fork.conversation.forkOf).toEqual({ conversationId: parentId, step: 2 });
    expect(fork.conversation.forkChanges).toEqual({ observation: "Observation: EDITED in the browser", agentVersion: 1 });
    expect(await page.getByTestId("chat-fork-banner").textContent()).toContain("agent version 1");
    // The live step ran version 1 of the profile, without the later persona.
    expect(JSON.stringify(llm.chatBodies()[3])).not.toContain("PERSONA-TWO");
    expect(llm.chatBodies()).toHaveLength(4);
    expect(await seriousViolations(page)).toEqual([]);

    // Back to the parent through the banner: it lists its fork, a link to it.
    await page.getByTestId("chat-fork-parent").click();
    await poll(() => page.getByTestId("agent-chat").getAttribute("data-conversation")).toBe(parentId);
    await poll(() => page.getByTestId("chat-fork-link").count()).toBe(1);
    expect(await page.getByTestId("chat-fork-banner").count()).toBe(0);
    await page.getByTestId("chat-fork-link").click();
    await poll(() => page.getByTestId("agent-chat").getAttribute("data-conversation")).toBe(forkId);
  });
});
