import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../packages/agent-runtime/src/index.ts";
import { texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { addScriptedAgent } from "./support/scripted-agent.ts";
import { SCREENSHOTS, screenshotBothThemes } from "./support/screens.ts";
import { useWeft } from "./support/weft.ts";
import { BuilderSessionListSchema } from "../../packages/types/src/index.ts";
import { AgentAnswerSchema, ConversationAnswerSchema } from "../../apps/backend/src/testing/answers.ts";

/** The repository's examples: the calculator agent (native tool calls), its deliberation workflow and skills. */
const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));

let llm: ScriptedLlmServer;
const weft = useWeft({ examplesDir: EXAMPLES }, async () => {
  // The clerk asks for a file name, writes the file under it (once the user allows it), then says so.
  llm = await startScriptedLlmServer({
    turns: [
      {
        kind: "text",
        chunks: ["I need a name first.\n<ACTION>\n  <ask_user>\n    <question>Which file name?</question>\n  </ask_user>\n</ACTION>"],
        reasoning: ["The user did not say where to write."],
      },
      { kind: "text", chunks: ["<ACTION>\n  <fs_write>\n    <path>@project/notes.txt</path>\n    <content>Remember the milk</content>\n  </fs_write>\n</ACTION>"] },
      { kind: "text", chunks: ["Written to notes.txt."] },
    ],
  });
  await addScriptedAgent(weft, llm, { id: "clerk", name: "Clerk", tools: ["fs:write"] });
});
afterAll(async () => {
  await llm?.stop();
});

async function openAgents(page: Page) {
  await page.locator('[data-testid="view-agents"]').click();
  await poll(() => page.locator('[data-testid="AgentsView"]').count()).toBe(1);
}

async function selectAgent(page: Page, id: string) {
  await page.locator(`.agent-item[data-agent-id="${id}"]`).click();
  await poll(() => page.locator('[data-testid="agent-editor"]').getAttribute("data-agent")).toBe(id);
}

async function say(page: Page, text: string) {
  await page.getByTestId("chat-input").fill(text);
  await page.getByTestId("chat-send").click();
  await poll(() => page.getByTestId("chat-input").inputValue()).toBe("");
}

const step = (page: Page, n: number) => page.locator(`[data-testid="chat-items"] [data-testid="trace-step"][data-step="${n}"]`);
const stored = async (id: string) => (await weft.read(`/api/agents/${id}`, AgentAnswerSchema)).agent;

describe("the Agents view", () => {
  it("talks to the calculator: each step's output, parsed action and Observation, the answer, the action's run in the debugger", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    await openAgents(page);
    expect(new URL(page.url()).hash).toBe("#/agents");
    // Opened before any other view: the shared utility styles the list uses are loaded too.
    expect(await page.locator(".agent-list > .section-title").evaluate((el) => getComputedStyle(el).paddingLeft)).toBe("10px");
    await selectAgent(page, "calculator");
    expect(await page.getByTestId("agent-name").inputValue()).toBe("Calculator (native tool calls)");
    expect(await page.getByTestId("agent-protocol").inputValue()).toBe("openai-tools");
    expect(await texts(page, '[data-testid="agent-tool"] .mono')).toBe("core:math\ncore:text-transform\ncore:get-path\nfs:list\nfs:read");
    expect(await page.locator('[data-testid="agent-skills"] [data-skill="summarize-skill"] input').isChecked()).toBe(true);

    await say(page, "multiply a: 6 by b: 7");
    await poll(() => texts(page, '[data-testid="chat-answer"]'), { timeout: 15_000 }).toContain("42");
    expect(await texts(page, '[data-testid="chat-user"]')).toBe("multiply a: 6 by b: 7");
    // Step 1: the model's native tool call, read as core_math with its parameters, and what came back.
    expect(await step(page, 1).getByTestId("trace-output").textContent()).toContain('core_math({"a":6,"b":7,"op":"multiply"})');
    expect(await step(page, 1).getByTestId("trace-parsed").textContent()).toContain("core_math");
    expect(await step(page, 1).getByTestId("trace-observation").textContent()).toContain('{"result":42}');
    await poll(() => page.getByTestId("chat-status").getAttribute("data-status")).toBe("completed");
    // The conversation is listed, and it is the one open.
    const conversationId = await page.getByTestId("agent-chat").getAttribute("data-conversation");
    expect(conversationId).toBeTruthy();
    await poll(() => page.getByTestId("chat-conversation").inputValue()).toBe(conversationId);
    if (SCREENSHOTS) await screenshotBothThemes(page, "agents-chat");

    // The recorded step names the run that did the multiplication: the link opens exactly that run.
    const conversation = await weft.read(`/api/conversations/${conversationId}`, ConversationAnswerSchema);
    const actionRun = conversation.steps[0].actions[0].runId;
    await step(page, 1).getByTestId("open-action-run").click();
    await poll(() => page.locator('[data-testid="view-editor"]').getAttribute("class")).toContain("active");
    await poll(() => page.locator(".run-banner").getAttribute("data-run-id")).toBe(actionRun);
    await poll(() => page.locator('.weft-node[data-status="completed"]').count()).toBe(1);

    // Back in the view, the conversation is still there, and a new one starts empty.
    await openAgents(page);
    await poll(() => page.locator('[data-testid="chat-answer"]').count()).toBe(1);
    await page.getByTestId("chat-conversation").selectOption("");
    await poll(() => page.locator('[data-testid="chat-items"] [data-testid="trace-step"]').count()).toBe(0);
    await page.getByTestId("chat-conversation").selectOption(conversationId!);
    await poll(() => page.locator('[data-testid="chat-items"] [data-testid="trace-step"]').count()).toBe(2);
  });

  it("creates an agent from the form: the server's refusal of an unknown tool at the field, then saved and found after a reload", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/agents`);
    await poll(() => page.locator('[data-testid="AgentsView"]').count()).toBe(1);
    await page.getByTestId("agent-new").click();
    await poll(() => page.getByTestId("agent-item-new").count()).toBe(1);
    expect(await page.getByTestId("agent-deliberation").inputValue()).toBe("agent-deliberation");
    expect(await page.getByTestId("chat-input").isDisabled()).toBe(true);
    await page.getByTestId("agent-name").fill("Greeter");
    expect(await page.getByTestId("agent-id").getAttribute("placeholder")).toBe("greeter");
    await page.getByTestId("agent-persona").fill("You greet people by name.");
    await page.getByTestId("agent-tool-search").fill("core:mathh");
    await page.getByTestId("agent-tool-add-typed").click();
    await page.getByTestId("agent-save").click();

    // Refused: the message is under the tools, the chip is marked, nothing is stored.
    await poll(() => page.getByTestId("agent-error-tools").textContent()).toContain('unknown node type "core:mathh" (did you mean "core:math"?)');
    expect(await page.locator('[data-testid="agent-tool"][data-type="core:mathh"]').getAttribute("class")).toContain("invalid");
    expect((await weft.api("GET", "/api/agents/greeter")).status).toBe(404);
    if (SCREENSHOTS) await screenshotBothThemes(page, "agents-form-error");

    await page.getByRole("button", { name: "Remove core:mathh" }).click();
    expect(await page.getByTestId("agent-error-tools").count()).toBe(0);
    await page.getByTestId("agent-tool-search").fill("math");
    await page.locator('[data-testid="agent-tool-option"][data-type="core:math"] input').check();
    await page.getByTestId("agent-max-steps").fill("5");
    await page.getByTestId("agent-save").click();
    await poll(() => page.locator('.agent-item.active[data-agent-id="greeter"]').count()).toBe(1);
    expect(await stored("greeter")).toMatchObject({ id: "greeter", name: "Greeter", persona: "You greet people by name.", tools: ["core:math"], maxSteps: 5, revision: 1 });
    expect(await page.getByTestId("agent-save").isDisabled()).toBe(true);

    await page.reload();
    await poll(() => page.locator('[data-testid="agent-editor"]').getAttribute("data-agent")).toBe("greeter");
    expect(await page.locator('.agent-item.active[data-agent-id="greeter"]').count()).toBe(1);
    expect(await page.getByTestId("agent-persona").inputValue()).toBe("You greet people by name.");
    expect(await texts(page, '[data-testid="agent-tool"] .mono')).toBe("core:math");
  });

  it("shows a stale save as a conflict, overwriting nothing until the user chooses", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/agents`);
    await selectAgent(page, "greeter");
    const base = await stored("greeter");
    await page.getByTestId("agent-persona").fill("Mine: greet warmly.");
    // Someone else saves meanwhile.
    expect((await weft.api("PUT", "/api/agents/greeter", { agent: { ...base, persona: "Theirs: greet briefly." }, baseRevision: base.revision })).status).toBe(200);

    await page.getByTestId("agent-save").click();
    await poll(() => page.getByTestId("agent-conflict").textContent()).toContain(`the server has revision ${base.revision + 1}`);
    expect(await stored("greeter")).toMatchObject({ persona: "Theirs: greet briefly.", revision: base.revision + 1 });
    if (SCREENSHOTS) await screenshotBothThemes(page, "agents-conflict");

    await page.getByTestId("agent-conflict-theirs").click();
    expect(await page.getByTestId("agent-persona").inputValue()).toBe("Theirs: greet briefly.");
    expect(await page.getByTestId("agent-conflict").count()).toBe(0);

    // Again, and this time the user keeps their version, knowingly.
    await page.getByTestId("agent-persona").fill("Mine: greet warmly.");
    const now = await stored("greeter");
    expect((await weft.api("PUT", "/api/agents/greeter", { agent: { ...now, name: "Greeter 2" }, baseRevision: now.revision })).status).toBe(200);
    await page.getByTestId("agent-save").click();
    await poll(() => page.getByTestId("agent-conflict").count()).toBe(1);
    await page.getByTestId("agent-conflict-mine").click();
    await poll(() => page.getByTestId("agent-conflict").count()).toBe(0);
    expect(await stored("greeter")).toMatchObject({ persona: "Mine: greet warmly.", name: "Greeter", revision: now.revision + 2 });
  });

  it("gives an agent its own permission rule, then answers its question and its permission request in the chat", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/agents`);
    await selectAgent(page, "clerk");
    await page.getByTestId("agent-add-rule").click();
    const rule = page.locator('[data-testid="agent-editor"] [data-testid="perm-rule"][data-index="0"]');
    expect(await rule.getByTestId("perm-action").inputValue()).toBe("ask");
    expect(await rule.getByTestId("perm-agent").count()).toBe(0);
    await rule.getByTestId("perm-tool").fill("fs.wirte");
    await page.getByTestId("agent-save").click();
    await poll(() => texts(page, '[data-testid="agent-editor"] [data-testid="perm-rule-error"]')).toContain('did you mean "fs.write"?');
    await rule.getByTestId("perm-tool").fill("fs.write");
    await page.getByTestId("agent-save").click();
    await poll(async () => (await stored("clerk")).permissions).toEqual([{ action: "ask", tool: "fs.write" }]);
    // The effective permissions follow the saved rule (it narrows the owner's default allow), and the change names who made it.
    const effective = page.locator('[data-testid="agent-effective-permissions"]');
    await poll(() => effective.locator('[data-testid="effective-fs.write-all"]').textContent()).toMatch(/fs\.write.*ask.*this agent's rule 1 \(narrows the owner's allow\)/);
    await poll(() => texts(page, '[data-testid="agent-changes"] li')).toMatch(/owner \(owner\) changed permissions/);

    await say(page, "Write down: remember the milk");
    await poll(() => texts(page, '[data-testid="chat-question"]'), { timeout: 15_000 }).toContain("Which file name?");
    await poll(() => page.getByTestId("chat-status").getAttribute("data-status")).toBe("waiting_user");
    expect(await page.getByTestId("chat-send").textContent()).toBe("Answer");
    // The reasoning is folded away under the step's output.
    expect(await step(page, 1).locator(".trace-reasoning").getAttribute("open")).toBeNull();
    expect(await step(page, 1).locator(".trace-reasoning summary").textContent()).toBe("Reasoning");

    await say(page, "notes");
    await poll(() => texts(page, '[data-testid="chat-reply"]'), { timeout: 15_000 }).toContain("notes");
    const ask = page.locator('[data-testid="agent-chat"] [data-testid="agent-permission"]');
    await poll(() => ask.count(), { timeout: 15_000 }).toBe(1);
    expect(await ask.textContent()).toMatch(/wants to use fs\.write on @project\/notes\.txt/);
    await poll(() => page.getByTestId("chat-status").getAttribute("data-status")).toBe("waiting_permission");
    expect(existsSync(join(weft.server.projectDir, "notes.txt"))).toBe(false);
    if (SCREENSHOTS) await screenshotBothThemes(page, "agents-permission");

    await ask.getByRole("button", { name: "Allow once" }).click();
    await poll(() => texts(page, '[data-testid="chat-answer"]'), { timeout: 15_000 }).toBe("Written to notes.txt.");
    expect(readFileSync(join(weft.server.projectDir, "notes.txt"), "utf8")).toBe("Remember the milk");
    expect(await ask.count()).toBe(0);
    expect(await texts(page, `[data-testid="chat-items"] [data-testid="trace-step"][data-step="2"] [data-testid="trace-action"]`)).toMatch(/permission fs\.write on @project\/notes\.txt: once/);
  });

  it("shows how to call an agent from OpenAI clients; a token made from there lists it at /v1/models", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/agents`);
    await selectAgent(page, "clerk");
    const access = page.getByTestId("agent-api-access");
    await access.locator("summary").click();
    expect(await access.getByTestId("agent-api-base-url").textContent()).toBe(`${new URL(weft.url).origin}/v1`);
    expect(await access.getByTestId("agent-api-model").textContent()).toBe("clerk");
    expect(await access.getByTestId("agent-api-example").textContent()).toContain('"model":"clerk"');

    await access.getByTestId("agent-api-token").click();
    const dialog = page.getByTestId("account-dialog");
    await dialog.getByTestId("token-name").fill("chat ui");
    await dialog.getByRole("button", { name: "Create token" }).click();
    await poll(() => dialog.locator(".token-value").textContent()).toMatch(/^weft_pat_/);
    const secret = (await dialog.locator(".token-value").textContent()) ?? "";
    const models = await fetch(`${weft.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } });
    expect(models.status).toBe(200);
    expect(JSON.stringify(await models.json())).toContain('"id":"clerk"');
    await page.keyboard.press("Escape");
  });

  it("opens the Builder AI on the selected agent", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/agents`);
    await selectAgent(page, "greeter");
    await page.getByTestId("agent-ask-builder").click();
    await poll(() => page.locator('[data-testid="view-builder"]').getAttribute("class")).toContain("active");
    await poll(async () => (await weft.read("/api/builder/sessions?targetType=agent&targetId=greeter", BuilderSessionListSchema)).sessions.length).toBe(1);
  });

  it("deletes an agent only once the user confirms", async () => {
    const { page } = weft;
    await page.getByTestId("view-agents").click();
    const item = page.locator('.agent-item[data-agent-id="greeter"]');
    const dialog = page.getByRole("alertdialog", { name: "Delete “Greeter”?" });
    await item.getByTestId("agent-delete").click();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await weft.api("GET", "/api/agents/greeter")).status).toBe(200);
    expect(await item.count()).toBe(1);

    await item.getByTestId("agent-delete").click();
    await dialog.getByRole("button", { name: "Delete", exact: true }).click();
    await poll(() => item.count()).toBe(0);
    expect((await weft.api("GET", "/api/agents/greeter")).status).toBe(404);
  });

  it("asks before the page is left over an agent's unsaved edits (the shell asks without importing the Agents view)", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/agents`);
    await selectAgent(page, "clerk");
    await page.getByTestId("agent-persona").fill("Unsaved: answer in one line.");
    let asked = false;
    page.once("dialog", (dialog) => {
      asked = dialog.type() === "beforeunload";
      void dialog.accept();
    });
    await page.reload();
    expect(asked).toBe(true);
  });
});
