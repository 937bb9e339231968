import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import OpenAI, { AuthenticationError, BadRequestError, NotFoundError, PermissionDeniedError } from "openai";
import { AgentStepTraceSchema, ConversationMessageSchema, ConversationSchema } from "@weft/types";
import { startTestServer, tempDir, type TestServer } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";
import { OpenAiErrorBodySchema } from "./openai-wire.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const ASK = "Please uppercase this text: hello weft";

const ConversationAnswerSchema = z.object({ conversation: ConversationSchema, messages: z.array(ConversationMessageSchema), steps: z.array(AgentStepTraceSchema) });
const ConversationListSchema = z.object({ conversations: z.array(ConversationSchema) });
const RunListSchema = z.object({ runs: z.array(z.object({ id: z.string() })) });

let t: TestServer;
let editor: TestUser;
let viewer: TestUser;
beforeAll(async () => {
  t = await startTestServer({ dataDir: tempDir(), examplesDir: EXAMPLES });
  editor = await createTestUser(t, "eddie", "editor");
  viewer = await createTestUser(t, "vera", "viewer");
});
afterAll(() => t.stop());

const tokenOf = (user: TestUser) => user.bearer.authorization.replace(/^Bearer /, "");
/** The official SDK pointed at Weft; no retries, so a refusal is seen once and nothing is sent twice. */
const client = (apiKey: string) => new OpenAI({ baseURL: `${t.url}/v1`, apiKey, maxRetries: 0, timeout: 120_000 });

async function conversationsOf(agentId: string) {
  return ConversationListSchema.parse((await t.call("GET", `/api/agents/${agentId}/conversations?limit=500`)).body).conversations;
}
async function runCount() {
  return RunListSchema.parse((await t.call("GET", "/api/runs?limit=500")).body).runs.length;
}
/** What Weft recorded for a conversation's LLM calls (GET /api/usage), in the wire answer's terms. */
async function recordedUsage(conversationId: string) {
  const res = await t.call("GET", `/api/usage?conversationId=${conversationId}`);
  expect(res.status).toBe(200);
  const [row] = z.object({ rows: z.array(z.object({ calls: z.number(), promptTokens: z.number(), completionTokens: z.number(), totalTokens: z.number() })) }).parse(res.body).rows;
  return { calls: row?.calls ?? 0, prompt_tokens: row?.promptTokens, completion_tokens: row?.completionTokens, total_tokens: row?.totalTokens };
}

async function conversation(id: string) {
  const res = await t.call("GET", `/api/conversations/${id}`);
  expect(res.status).toBe(200);
  return ConversationAnswerSchema.parse(res.body);
}

describe("every agent as an OpenAI-compatible endpoint, through the official openai SDK", () => {
  it("lists the agents as models (models.list and models.retrieve)", async () => {
    const sdk = client(tokenOf(editor));
    const ids: string[] = [];
    for await (const model of sdk.models.list()) {
      expect(model).toMatchObject({ object: "model", owned_by: "weft", created: expect.any(Number) });
      ids.push(model.id);
    }
    const agents = z
      .object({ agents: z.array(z.object({ id: z.string() })) })
      .parse((await t.call("GET", "/api/agents")).body)
      .agents.map((a) => a.id);
    expect(ids.sort()).toEqual(agents.sort());
    expect(ids).toContain("text-helper");
    expect(await sdk.models.retrieve("text-helper")).toMatchObject({ id: "text-helper", object: "model" });
    await expect(sdk.models.retrieve("no-such-agent")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("answers a chat completion with the agent's final answer; its steps stay in Weft, linked by the answer's id", async () => {
    const answer = await client(tokenOf(editor)).chat.completions.create({ model: "text-helper", messages: [{ role: "user", content: ASK }] });
    expect(answer).toMatchObject({ object: "chat.completion", model: "text-helper", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant" } }] });
    expect(answer.id).toMatch(/^chatcmpl-/);
    const content = answer.choices[0]?.message.content ?? "";
    expect(content).toContain("HELLO WEFT");
    // The tool call and its observation are not in the answer: the model's action block stays inside.
    expect(content).not.toMatch(/<ACTION|core:text-transform/i);

    const stored = await conversation(answer.id.replace(/^chatcmpl-/, ""));
    expect(stored.conversation.agentId).toBe("text-helper");
    // The usage is the sum of the loop's LLM calls (one per step), as recorded.
    const recorded = await recordedUsage(stored.conversation.id);
    expect(recorded.calls).toBeGreaterThanOrEqual(2);
    expect(answer.usage).toMatchObject({ prompt_tokens: recorded.prompt_tokens, completion_tokens: recorded.completion_tokens, total_tokens: recorded.total_tokens });
    expect(answer.usage?.total_tokens).toBeGreaterThan(0);
    expect(stored.messages[0]).toMatchObject({ role: "user", content: ASK });
    expect(stored.steps[0]?.actions[0]).toMatchObject({ status: "completed", parse: { kind: "call", toolId: "core:text-transform" } });
    // The runs the loop started name the token's user.
    const run = z.object({ run: z.object({ createdBy: z.string().optional() }) }).parse((await t.call("GET", `/api/runs/${stored.steps[0]!.deliberation.runId}`)).body).run;
    expect(run.createdBy).toBe(editor.id);
  });

  it("streams the answer as chat.completion.chunk events ending in [DONE]", async () => {
    const stream = await client(tokenOf(editor)).chat.completions.create({ model: "text-helper", messages: [{ role: "user", content: ASK }], stream: true, stream_options: { include_usage: true } });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    for (const chunk of chunks) expect(chunk).toMatchObject({ object: "chat.completion.chunk", model: "text-helper", id: chunks[0]!.id });
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toContain("HELLO WEFT");
    // include_usage: the finish, then one last chunk with no choices and the answer's usage.
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.at(-1)?.choices).toEqual([]);
    const conversationId = chunks[0]!.id.replace(/^chatcmpl-/, "");
    expect((await conversation(conversationId)).steps.length).toBeGreaterThan(0);
    const recorded = await recordedUsage(conversationId);
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: recorded.prompt_tokens, completion_tokens: recorded.completion_tokens, total_tokens: recorded.total_tokens });
  });

  it("turns the earlier messages into the new conversation's history, the caller's system message first as context", async () => {
    const answer = await client(tokenOf(editor)).chat.completions.create({
      model: "text-helper",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi, I will send you text." },
        { role: "assistant", content: "Fine, send it." },
        { role: "user", content: [{ type: "text", text: ASK }] },
      ],
    });
    expect(answer.choices[0]?.message.content).toContain("HELLO WEFT");
    const stored = await conversation(answer.id.replace(/^chatcmpl-/, ""));
    expect(stored.messages.slice(0, 4).map((m) => [m.role, m.content])).toEqual([
      ["user", expect.stringContaining("Be brief.")],
      ["user", "Hi, I will send you text."],
      ["assistant", "Fine, send it."],
      ["user", ASK],
    ]);
  });
});

describe("refusals, in OpenAI's error shape, that run nothing", () => {
  it("a wrong token: AuthenticationError, and no conversation or run", async () => {
    const [conversations, runs] = [(await conversationsOf("text-helper")).length, await runCount()];
    await expect(client("weft_pat_not-a-real-token").chat.completions.create({ model: "text-helper", messages: [{ role: "user", content: ASK }] })).rejects.toBeInstanceOf(AuthenticationError);
    await expect(client("weft_pat_not-a-real-token").chat.completions.create({ model: "text-helper", messages: [{ role: "user", content: ASK }], stream: true })).rejects.toBeInstanceOf(
      AuthenticationError,
    );
    await expect(client("weft_pat_not-a-real-token").models.list()).rejects.toBeInstanceOf(AuthenticationError);

    // No token at all, and the editor's session cookie (this endpoint takes tokens only): 401 in OpenAI's shape.
    const body = JSON.stringify({ model: "text-helper", messages: [{ role: "user", content: ASK }] });
    for (const headers of [{}, editor.session]) {
      const res = await fetch(`${t.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
      expect(res.status).toBe(401);
      expect(OpenAiErrorBodySchema.parse(await res.json()).error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
    }
    expect((await conversationsOf("text-helper")).length).toBe(conversations);
    expect(await runCount()).toBe(runs);
  });

  it("a viewer's token: PermissionDeniedError (running an agent is an editor's), and nothing runs", async () => {
    const [conversations, runs] = [(await conversationsOf("text-helper")).length, await runCount()];
    await expect(client(tokenOf(viewer)).chat.completions.create({ model: "text-helper", messages: [{ role: "user", content: ASK }] })).rejects.toBeInstanceOf(PermissionDeniedError);
    expect((await conversationsOf("text-helper")).length).toBe(conversations);
    expect(await runCount()).toBe(runs);
  });

  it("an unknown model: 404 model_not_found", async () => {
    const error = await client(tokenOf(editor))
      .chat.completions.create({ model: "no-such-agent", messages: [{ role: "user", content: ASK }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, code: "model_not_found", type: "not_found_error" });
  });

  it("a bad body: 400 naming the parameter, for each unsupported or wrong part", async () => {
    const sdk = client(tokenOf(editor));
    const user = { role: "user" as const, content: ASK };
    const [conversations, runs] = [(await conversationsOf("text-helper")).length, await runCount()];
    const cases: Array<[OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming, string]> = [
      [{ model: "text-helper", messages: [] }, "messages"],
      [{ model: "text-helper", messages: [user], n: 2 }, "n"],
      [{ model: "text-helper", messages: [user], tools: [{ type: "function", function: { name: "f", parameters: {} } }] }, "tools"],
      [{ model: "text-helper", messages: [user], response_format: { type: "json_object" } }, "response_format.type"],
      [{ model: "text-helper", messages: [user, { role: "assistant", content: "and?" }] }, "messages[1].role"],
      [{ model: "text-helper", messages: [{ role: "user", content: "x".repeat(100_001) }] }, "messages[0].content"],
      [{ model: "text-helper", messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/a.png" } }] }] }, "messages[0].content"],
      [{ model: "text-helper", messages: [{ role: "tool", tool_call_id: "c1", content: "42" }, user] }, "messages[0]"],
    ];
    for (const [params, param] of cases) {
      const error = await sdk.chat.completions.create(params).catch((e: unknown) => e);
      expect(error, JSON.stringify(params).slice(0, 200)).toBeInstanceOf(BadRequestError);
      expect((error as BadRequestError).param, JSON.stringify((error as BadRequestError).error)).toBe(param);
      expect((error as BadRequestError).type).toBe("invalid_request_error");
    }
    expect((await conversationsOf("text-helper")).length).toBe(conversations);
    expect(await runCount()).toBe(runs);
  });

  it("a route Weft does not speak (embeddings): 404 in OpenAI's shape, never the editor's page", async () => {
    for (const method of ["GET", "POST"]) {
      const res = await t.fetch("/v1/embeddings", method === "POST" ? { method, headers: { "content-type": "application/json" }, body: "{}" } : {});
      expect(res.status).toBe(404);
      expect(OpenAiErrorBodySchema.parse(await res.json()).error.type).toBe("not_found_error");
    }
  });

  it("a page of another site: refused (403, no CORS answer), nothing runs", async () => {
    const runs = await runCount();
    const res = await fetch(`${t.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://evil.example", ...editor.bearer },
      body: JSON.stringify({ model: "text-helper", messages: [{ role: "user", content: ASK }] }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect(OpenAiErrorBodySchema.parse(await res.json()).error.code).toBe("forbidden_origin");
    expect(await runCount()).toBe(runs);
  });
});
