import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { TaskState, type Message, type Task } from "@a2a-js/sdk";
import { sdkClient, textOf, userMessage } from "./testing/sdk-client.ts";
import { ConversationMessageSchema, ConversationSchema } from "@weft/types";
import { startTestServer, tempDir, type TestServer } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const ASK = "Please uppercase this text: hello weft";

const ConversationListSchema = z.object({ conversations: z.array(ConversationSchema) });
const ConversationAnswerSchema = z.object({ conversation: ConversationSchema, messages: z.array(ConversationMessageSchema) });

let t: TestServer;
const client = (agentId: string, headers: Record<string, string>) => sdkClient(t.url, agentId, headers);
let editor: TestUser;
let viewer: TestUser;
beforeAll(async () => {
  t = await startTestServer({ dataDir: tempDir(), examplesDir: EXAMPLES });
  editor = await createTestUser(t, "eddie", "editor");
  viewer = await createTestUser(t, "vera", "viewer");
});
afterAll(() => t.stop());

async function conversationsOf(agentId: string) {
  return ConversationListSchema.parse((await t.call("GET", `/api/agents/${agentId}/conversations?limit=500`)).body).conversations;
}

describe("every agent as an A2A server, through the official @a2a-js/sdk client", () => {
  it("serves each agent's card and the installation's card listing them, with the Bearer scheme", async () => {
    const res = await fetch(`${t.url}/a2a/text-helper/.well-known/agent-card.json`, { headers: editor.bearer });
    expect(res.status).toBe(200);
    const card = z
      .object({
        name: z.string(),
        supportedInterfaces: z.array(z.object({ url: z.string(), protocolBinding: z.string(), protocolVersion: z.string() })),
        securitySchemes: z.record(z.string(), z.unknown()),
        capabilities: z.object({ streaming: z.boolean() }),
      })
      .parse(await res.json());
    expect(card.supportedInterfaces).toEqual([
      { url: `${t.url}/a2a/text-helper`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${t.url}/a2a/text-helper`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ]);
    expect(card.securitySchemes).toMatchObject({ weftPersonalToken: { httpAuthSecurityScheme: { scheme: "Bearer" } } });
    expect(card.capabilities.streaming).toBe(true);
    const installation = z
      .object({ skills: z.array(z.object({ id: z.string(), description: z.string() })) })
      .parse(await (await fetch(`${t.url}/.well-known/agent-card.json`, { headers: editor.bearer })).json());
    expect(installation.skills.find((s) => s.id === "text-helper")?.description).toContain(`${t.url}/a2a/text-helper/.well-known/agent-card.json`);
  });

  it("message/send: a task that completes with the agent's answer; the task is a Weft conversation, and its contextId continues it", async () => {
    const sdk = await client("text-helper", editor.bearer);
    const result = await sdk.sendMessage({ message: userMessage(ASK), configuration: undefined, metadata: undefined, tenant: "" });
    const task = result as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.status?.message)).toContain("HELLO WEFT");
    expect(task.artifacts[0]?.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("")).toContain("HELLO WEFT");
    // The context is the conversation: its steps stay in Weft.
    const stored = ConversationAnswerSchema.parse((await t.call("GET", `/api/conversations/${task.contextId}`)).body);
    expect(stored.conversation.agentId).toBe("text-helper");
    expect(stored.messages[0]).toMatchObject({ role: "user", content: ASK });
    // tasks/get reads it back.
    const got = await sdk.getTask({ id: task.id, historyLength: undefined, tenant: "" });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // Another editor's token does not see it.
    const other = await createTestUser(t, "otto", "editor");
    await expect((await client("text-helper", other.bearer)).getTask({ id: task.id, historyLength: undefined, tenant: "" })).rejects.toThrow();
    // The same contextId: a second turn in the same conversation, with its own answer.
    const again = (await sdk.sendMessage({ message: userMessage("Please uppercase this text: second turn", task.contextId), configuration: undefined, metadata: undefined, tenant: "" })) as Task;
    expect(again.contextId).toBe(task.contextId);
    expect(again.id).not.toBe(task.id);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(again.status?.message)).toContain("SECOND TURN");
    const after = ConversationAnswerSchema.parse((await t.call("GET", `/api/conversations/${task.contextId}`)).body);
    expect(after.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(expect.arrayContaining([ASK, "Please uppercase this text: second turn"]));
    expect(await conversationsOf("text-helper")).toContainEqual(expect.objectContaining({ id: task.contextId }));
  });

  it("message/stream: the task's states as SSE events, ending completed with the answer", async () => {
    const sdk = await client("text-helper", editor.bearer);
    const states: TaskState[] = [];
    let answer = "";
    for await (const event of sdk.sendMessageStream({ message: userMessage(ASK), configuration: undefined, metadata: undefined, tenant: "" })) {
      if ("kind" in event) continue;
      const payload = (event as { payload?: { $case: string; value: unknown } }).payload;
      if (payload?.$case === "task") states.push((payload.value as Task).status!.state);
      if (payload?.$case === "statusUpdate") {
        const status = (payload.value as { status: { state: TaskState; message?: Message } }).status;
        states.push(status.state);
        if (status.message) answer = textOf(status.message);
      }
    }
    expect(states[0]).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(states).toContain(TaskState.TASK_STATE_WORKING);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answer).toContain("HELLO WEFT");
  });

  it("A2A 0.3's message/send on the same endpoint (JSON-RPC by hand): the task completes", async () => {
    const res = await fetch(`${t.url}/a2a/text-helper`, {
      method: "POST",
      headers: { "content-type": "application/json", ...editor.bearer },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text: ASK }] } } }),
    });
    const body = z.object({ result: z.object({ kind: z.literal("task"), id: z.string(), status: z.object({ state: z.string() }), artifacts: z.array(z.unknown()) }) }).parse(await res.json());
    expect(body.result.status.state).toBe("completed");
    expect(JSON.stringify(body.result.artifacts)).toContain("HELLO WEFT");
  });
});

describe("refusals that run nothing", () => {
  const send = (headers: Record<string, string>, text = ASK) =>
    fetch(`${t.url}/a2a/text-helper`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text }] } } }),
    });

  it("no token, a wrong token, the editor's session cookie: 401 with WWW-Authenticate, and no conversation stored", async () => {
    const before = (await conversationsOf("text-helper")).length;
    for (const headers of [{}, { authorization: "Bearer weft_pat_not-a-real-token" }, editor.session]) {
      const res = await send(headers);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      const card = await fetch(`${t.url}/a2a/text-helper/.well-known/agent-card.json`, { headers });
      expect(card.status).toBe(401);
    }
    await expect(client("text-helper", { authorization: "Bearer weft_pat_not-a-real-token" })).rejects.toThrow();
    expect((await conversationsOf("text-helper")).length).toBe(before);
  });

  it("a viewer's token: 403, and nothing runs", async () => {
    const before = (await conversationsOf("text-helper")).length;
    expect((await send(viewer.bearer)).status).toBe(403);
    expect((await conversationsOf("text-helper")).length).toBe(before);
  });

  it("a message over the size limit fails its task with the limit named, and stores no conversation", async () => {
    const before = (await conversationsOf("text-helper")).length;
    const res = await send(editor.bearer, "x".repeat(100_001));
    const body = z.object({ result: z.object({ status: z.object({ state: z.string(), message: z.object({ parts: z.array(z.object({ text: z.string() })) }) }) }) }).parse(await res.json());
    expect(body.result.status.state).toBe("failed");
    expect(body.result.status.message.parts[0]?.text).toContain("at most 100000");
    expect((await conversationsOf("text-helper")).length).toBe(before);
    const huge = await send(editor.bearer, "x".repeat(1024 * 1024 + 1));
    expect(huge.status).toBe(413);
  });

  it("an unknown agent: 404", async () => {
    const res = await fetch(`${t.url}/a2a/no-such-agent/.well-known/agent-card.json`, { headers: editor.bearer });
    expect(res.status).toBe(404);
  });
});
