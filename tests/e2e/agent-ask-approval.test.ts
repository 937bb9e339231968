import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../packages/agent-runtime/src/index.ts";
import { texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { AgentAnswerSchema } from "../../apps/backend/src/testing/answers.ts";
import { addScriptedAgent } from "./support/scripted-agent.ts";
import { useWeft } from "./support/weft.ts";

const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));

let llm: ScriptedLlmServer;
const weft = useWeft({ examplesDir: EXAMPLES }, async () => {
  llm = await startScriptedLlmServer({
    turns: [
      { kind: "text", chunks: ["I need an approval.\n<ACTION>\n  <ask_approval>\n    <question>Pay invoice 17?</question>\n  </ask_approval>\n</ACTION>"] },
      { kind: "text", chunks: ["Invoice 17 paid."] },
    ],
  });
  await addScriptedAgent(weft, llm, { id: "payer", name: "Payer", tools: [] });
});
afterAll(async () => {
  await llm?.stop();
});

describe("an agent's ask_approval in the editor", () => {
  it("shows Waiting for approval with a button that opens the header's inbox, where approving continues the agent", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/agents`);
    await page.locator('.agent-item[data-agent-id="payer"]').click();
    await poll(() => page.locator('[data-testid="agent-editor"]').getAttribute("data-agent")).toBe("payer");
    // Off by default: the editor's toggle offers it, saved with the profile.
    expect(await page.getByTestId("agent-ask-approval").isChecked()).toBe(false);
    await page.getByTestId("agent-ask-approval").check();
    await page.getByTestId("agent-save").click();
    await poll(async () => (await weft.read("/api/agents/payer", AgentAnswerSchema)).agent.askApproval).toBe(true);
    await page.getByTestId("chat-input").fill("Pay invoice 17 once approved.");
    await page.getByTestId("chat-send").click();
    await poll(() => texts(page, '[data-testid="chat-waiting-approval"]'), { timeout: 30_000 }).toContain("Waiting for approval: Pay invoice 17?");
    await page.getByTestId("chat-open-approvals").click();
    const panel = page.locator("#approvals-inbox-panel");
    await poll(() => texts(page, "#approvals-inbox-panel .question")).toContain("Pay invoice 17?");
    await panel.getByTestId("approval-approve").click();
    await poll(() => texts(page, '[data-testid="chat-answer"]'), { timeout: 30_000 }).toContain("Invoice 17 paid.");
    expect(await page.getByTestId("chat-waiting-approval").count()).toBe(0);
    expect(llm.chatBodies()).toHaveLength(2);
  });
});
