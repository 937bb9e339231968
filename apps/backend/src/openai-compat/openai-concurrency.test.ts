import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import OpenAI, { RateLimitError } from "openai";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { startTestServer, tempDir, waitFor, type TestServer } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";
import { ProfileIdAnswerSchema } from "../testing/answers.ts";

/** The repository's examples: the deliberation workflow the scripted agent thinks with. */
const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const ConversationListSchema = z.object({ conversations: z.array(z.object({ id: z.string() })) });

let t: TestServer;
let llm: ScriptedLlmServer;
let ann: TestUser;
let bob: TestUser;
beforeAll(async () => {
  // One completion in flight per user.
  t = await startTestServer({ dataDir: tempDir(), examplesDir: EXAMPLES, v1Concurrency: 1 });
  llm = await startScriptedLlmServer();
  const profile = await t.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
  expect(profile.status).toBe(201);
  const agent = { id: "slow", name: "Slow", tools: [], deliberationWorkflowId: "agent-deliberation", llmProfileId: ProfileIdAnswerSchema.parse(profile.body).profile.id };
  expect((await t.call("POST", "/api/agents", agent)).status).toBe(201);
  ann = await createTestUser(t, "ann", "editor");
  bob = await createTestUser(t, "bob", "editor");
});
afterAll(async () => {
  await t.stop();
  await llm.stop();
});

const sdk = (user: TestUser) => new OpenAI({ baseURL: `${t.url}/v1`, apiKey: user.bearer.authorization.replace(/^Bearer /, ""), maxRetries: 0, timeout: 120_000 });
const conversations = async () => ConversationListSchema.parse((await t.call("GET", "/api/agents/slow/conversations?limit=500")).body).conversations.length;

describe("how many chat completions one user may have in flight (WEFT_V1_CONCURRENCY)", () => {
  it("refuses a user's completion past the limit with 429 and Retry-After, before any agent loop starts; other users and later requests go on", async () => {
    let letFirstAnswer = () => {};
    const firstHeld = new Promise<void>((resolve) => (letFirstAnswer = resolve));
    llm.enqueue({ kind: "text", chunks: ["First answer."], holdUntil: firstHeld });
    const before = llm.chatBodies().length;
    const first = await sdk(ann).chat.completions.create({ model: "slow", messages: [{ role: "user", content: "one" }], stream: true });
    await waitFor(async () => (llm.chatBodies().length > before ? true : undefined));
    const started = await conversations();

    const refused = await sdk(ann)
      .chat.completions.create({ model: "slow", messages: [{ role: "user", content: "two" }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(RateLimitError);
    expect((refused as RateLimitError).headers.get("retry-after")).toBe("1");
    expect((refused as RateLimitError).message).toContain("WEFT_V1_CONCURRENCY");
    expect(await conversations()).toBe(started);

    // Another user is not held by ann's completion.
    llm.enqueue({ kind: "text", chunks: ["Bob's answer."] });
    const bobs = await sdk(bob).chat.completions.create({ model: "slow", messages: [{ role: "user", content: "three" }] });
    expect(bobs.choices[0]?.message.content).toBe("Bob's answer.");

    letFirstAnswer();
    let text = "";
    for await (const part of first) text += part.choices[0]?.delta.content ?? "";
    expect(text).toBe("First answer.");
    // The stream's end freed ann's slot.
    llm.enqueue({ kind: "text", chunks: ["Again."] });
    const again = await sdk(ann).chat.completions.create({ model: "slow", messages: [{ role: "user", content: "four" }] });
    expect(again.choices[0]?.message.content).toBe("Again.");
  });
});
