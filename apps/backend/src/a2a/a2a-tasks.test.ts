import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { TaskState, type Task } from "@a2a-js/sdk";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { sdkClient, textOf, userMessage } from "./testing/sdk-client.ts";
import { startTestServer, tempDir, waitFor, type TestServer } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";
import { ProfileIdAnswerSchema } from "../testing/answers.ts";

/** The repository's examples: the deliberation workflow the scripted agent thinks with. */
const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const ConversationStateSchema = z.object({ agent: z.object({ status: z.string(), running: z.boolean() }).optional() });
const ASK_USER = "<ACTION>\n  <ask_user>\n    <question>Which city?</question>\n  </ask_user>\n</ACTION>";

const dataDir = tempDir();
let t: TestServer;
let llm: ScriptedLlmServer;
let editor: TestUser;
let other: TestUser;
let profileId: string;

const send = (text: string, ids: { contextId?: string; taskId?: string } = {}, returnImmediately = false) => ({
  message: { ...userMessage(text, ids.contextId), taskId: ids.taskId ?? "" },
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
  metadata: undefined,
  tenant: "",
});
const getTask = (id: string) => ({ id, historyLength: undefined, tenant: "" });

/** The LLM requests received so far that carry this text (each turn of one conversation repeats its history). */
const requestsWith = (text: string) => llm.requests.filter((r) => r.path.endsWith("/chat/completions") && JSON.stringify(r.body).includes(text));

async function agentState(conversationId: string) {
  return ConversationStateSchema.parse((await t.call("GET", `/api/conversations/${conversationId}`)).body).agent;
}

beforeAll(async () => {
  llm = await startScriptedLlmServer();
  t = await startTestServer({ dataDir, examplesDir: EXAMPLES });
  const profile = await t.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0, timeoutMs: 300_000 });
  expect(profile.status).toBe(201);
  profileId = ProfileIdAnswerSchema.parse(profile.body).profile.id;
  const agent = { id: "scripted", name: "Scripted", tools: [], deliberationWorkflowId: "agent-deliberation", llmProfileId: profileId };
  expect((await t.call("POST", "/api/agents", agent)).status).toBe(201);
  editor = await createTestUser(t, "ed", "editor");
  other = await createTestUser(t, "otto", "editor");
}, 120_000);
afterAll(async () => {
  await t.stop();
  await llm.stop();
});

describe("A2A tasks through the official @a2a-js/sdk client", () => {
  it("tasks/cancel stops a running task's loop (the LLM call is dropped, no further one is made) and the task stays canceled, after a restart too", async () => {
    const marker = "cancel me please";
    // The answer takes minutes: the task is running when it is cancelled.
    llm.enqueue({ kind: "text", chunks: ["too late"], delayMs: 90_000 });
    const sdk = await sdkClient(t.url, "scripted", editor.bearer);
    const started = (await sdk.sendMessage(send(marker, {}, true))) as Task;
    expect(started.id).not.toBe("");
    await waitFor(async () => (requestsWith(marker).length > 0 ? true : undefined), 60_000, "the agent's LLM call");
    const cancelled = await sdk.cancelTask({ id: started.id, tenant: "", metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // The loop stopped: its LLM request was dropped by Weft, and the conversation's agent is no longer running.
    await waitFor(async () => (requestsWith(marker)[0]?.clientClosedEarly ? true : undefined), 60_000, "the LLM request dropped");
    await waitFor(async () => ((await agentState(started.contextId))?.running === false ? true : undefined), 60_000, "the loop stopped");
    const asked = llm.chatBodies().length;
    expect(requestsWith(marker)).toHaveLength(1);
    expect((await sdk.getTask(getTask(started.id))).status?.state).toBe(TaskState.TASK_STATE_CANCELED);

    await t.stop();
    t = await startTestServer({ dataDir, examplesDir: EXAMPLES });
    const afterRestart = await sdkClient(t.url, "scripted", editor.bearer);
    expect((await afterRestart.getTask(getTask(started.id))).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // No LLM call since: nothing resumed the cancelled loop.
    expect(llm.chatBodies().length).toBe(asked);
  });

  it("another user's tasks/get and tasks/cancel find nothing: the task goes on and completes for its owner", async () => {
    llm.enqueue({ kind: "text", chunks: ["Owner's answer."], delayMs: 3_000 });
    const mine = await sdkClient(t.url, "scripted", editor.bearer);
    const theirs = await sdkClient(t.url, "scripted", other.bearer);
    const started = (await mine.sendMessage(send("only mine", {}, true))) as Task;
    const read = await theirs.getTask(getTask(started.id)).catch((e: unknown) => e);
    expect(read).toBeInstanceOf(Error);
    expect(String((read as Error).message)).toMatch(/not found/i);
    const cancel = await theirs.cancelTask({ id: started.id, tenant: "", metadata: undefined }).catch((e: unknown) => e);
    expect(cancel).toBeInstanceOf(Error);
    const done = await waitFor(async () => {
      const task = await mine.getTask(getTask(started.id));
      return task.status?.state === TaskState.TASK_STATE_COMPLETED ? task : undefined;
    });
    expect(textOf(done.status?.message)).toBe("Owner's answer.");
  });

  it("an agent that asks the user leaves the task input-required; the answer sent in the same task continues it to completed", async () => {
    llm.enqueue({ kind: "text", chunks: [ASK_USER] }, { kind: "text", chunks: ["The weather in Lyon is fine."] });
    const sdk = await sdkClient(t.url, "scripted", editor.bearer);
    const asked = (await sdk.sendMessage(send("What is the weather?"))) as Task;
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(asked.status?.message)).toBe("Which city?");
    const answered = (await sdk.sendMessage(send("Lyon", { contextId: asked.contextId, taskId: asked.id }))) as Task;
    expect(answered.id).toBe(asked.id);
    expect(answered.contextId).toBe(asked.contextId);
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(answered.status?.message)).toBe("The weather in Lyon is fine.");
    // The model got the user's answer as the result of its question.
    expect(JSON.stringify(llm.chatBodies().at(-1))).toContain("Lyon");
    expect((await sdk.getTask(getTask(asked.id))).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("an agent's permission prompt leaves the task input-required naming the tool; the answer in the same task lets the call run and the task complete", async () => {
    expect(
      (await t.call("POST", "/api/agents", { id: "reader", name: "Reader", tools: ["fs:read"], protocol: "openai-tools", deliberationWorkflowId: "agent-deliberation", llmProfileId: profileId }))
        .status,
    ).toBe(201);
    expect((await t.call("PUT", "/api/settings/permissions", { defaultAction: "ask", rules: [] })).status).toBe(200);
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "fs_read", arguments: JSON.stringify({ path: "@project/plan.txt" }) }] }, { kind: "text", chunks: ["Read it."] });
    const sdk = await sdkClient(t.url, "reader", editor.bearer);
    const before = llm.chatBodies().length;
    const asked = (await sdk.sendMessage(send("Read the plan"))) as Task;
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(asked.status?.message)).toMatch(/fs\.read on @project\/plan\.txt.*"once"/);
    // The loop waits: the model was asked once so far.
    expect(llm.chatBodies().length - before).toBe(1);
    const unclear = (await sdk.sendMessage(send("maybe", { contextId: asked.contextId, taskId: asked.id }))) as Task;
    expect(unclear.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(llm.chatBodies().length - before).toBe(1);
    const answered = (await sdk.sendMessage(send("once", { contextId: asked.contextId, taskId: asked.id }))) as Task;
    expect(answered.id).toBe(asked.id);
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(answered.status?.message)).toBe("Read it.");
    // The tool ran (its result, found or not, went back to the model) and the loop went on.
    expect(llm.chatBodies().length - before).toBe(2);
    expect(JSON.stringify(llm.chatBodies().at(-1))).toContain('"role":"tool"');
  });
});
