import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { AgentProfileSchema, AgentStepTraceSchema, ConversationMessageSchema, ConversationSchema } from "@weft/types";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { ProfileIdAnswerSchema } from "../testing/answers.ts";
import { EventsPageSchema, RunAnswerSchema, startTestServer, tempDir, waitFor, type TestServer } from "../testing/test-server.ts";
import { contiguousFrom, TestWsClient } from "../testing/ws-client.ts";

/** GET /api/conversations/:id: the conversation, its messages and steps, and the agent's state in it. */
const ConversationAnswerSchema = z.object({
  conversation: ConversationSchema,
  messages: z.array(ConversationMessageSchema),
  steps: z.array(AgentStepTraceSchema),
  agent: z.object({ status: z.string(), running: z.boolean() }).optional(),
});
type ConversationAnswer = z.infer<typeof ConversationAnswerSchema>;
/** POST /api/agents/:id/messages: the conversation the message went to. */
const SentSchema = z.object({ conversationId: z.string() });
const ConversationListSchema = z.object({ conversations: z.array(ConversationSchema) });
/** GET /api/runs/:id of a step's action: a single-tool run has no stored workflow to show. */
const ActionRunAnswerSchema = RunAnswerSchema.partial({ workflow: true });

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));

async function settled(t: TestServer, conversationId: string, steps: number): Promise<ConversationAnswer> {
  return waitFor(
    async () => {
      const res = await t.call("GET", `/api/conversations/${conversationId}`);
      if (res.status !== 200) return undefined;
      const answer = ConversationAnswerSchema.parse(res.body);
      return answer.agent && !answer.agent.running && answer.steps.length >= steps ? answer : undefined;
    },
    20_000,
    `conversation ${conversationId} to settle`,
  );
}

describe("agent messages (with the demo LLM)", () => {
  const dataDir = tempDir();
  let t: TestServer;
  let conversationId: string;
  beforeAll(async () => {
    t = await startTestServer({ dataDir, examplesDir: EXAMPLES });
  });
  afterAll(() => t.stop());

  it("runs the agent's loop on a message, streams its events and keeps every step", async () => {
    const ws = await TestWsClient.connect(t.url);
    const sent = await t.call("POST", "/api/agents/text-helper/messages", { message: "Please uppercase this text: hello weft" });
    expect(sent.status).toBe(202);
    conversationId = SentSchema.parse(sent.body).conversationId;
    ws.subscribe(conversationId);
    const events = await ws.waitFor((c) => {
      const list = c.events(conversationId);
      return list.some((e) => e.type === "agent.finished") ? list : undefined;
    }, 60_000);
    ws.close();
    expect(contiguousFrom(events, -1)).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "agent.finished", agentId: "text-helper", status: "completed" });

    const conversation = await settled(t, conversationId, 1);
    expect(conversation.conversation).toMatchObject({ id: conversationId, agentId: "text-helper" });
    expect(conversation.agent).toMatchObject({ status: "completed", running: false });
    expect(conversation.messages[0]).toMatchObject({ role: "user", content: "Please uppercase this text: hello weft" });
    expect(conversation.messages.at(-1)?.role).toBe("assistant");
    const [first, last] = [conversation.steps[0], conversation.steps.at(-1)];
    expect(first?.actions[0]).toMatchObject({ status: "completed", ok: true, parse: { kind: "call", toolId: "core:text-transform" } });
    expect(last?.status).toBe("completed");

    // The runs behind the steps are stored like any run: the deliberation and the action.
    const deliberation = RunAnswerSchema.parse((await t.call("GET", `/api/runs/${first!.deliberation.runId}`)).body);
    expect(deliberation.run).toMatchObject({ workflowId: "agent-deliberation", status: "completed" });
    expect(deliberation.observations.length).toBeGreaterThan(0);
    const actionRunId = first!.actions[0]!.runId;
    const action = ActionRunAnswerSchema.parse((await t.call("GET", `/api/runs/${actionRunId}`)).body);
    expect(action.run).toMatchObject({ workflowId: "single:core:text-transform", status: "completed" });
    const actionEvents = EventsPageSchema.parse((await t.call("GET", `/api/runs/${actionRunId}/events`)).body).events;
    expect(actionEvents.map((e) => e.type)).toEqual(expect.arrayContaining(["run.started", "run.completed"]));
    expect((await t.call("POST", `/api/runs/${actionRunId}/rerun`)).status).toBe(409);
    expect(ConversationListSchema.parse((await t.call("GET", "/api/agents/text-helper/conversations")).body).conversations.map((c) => c.id)).toEqual([conversationId]);
  });

  it("continues the conversation, also after a restart, numbering steps and events on", async () => {
    const before = await settled(t, conversationId, 1);
    await t.call("POST", "/api/agents/text-helper/messages", { message: "Now make it lower case: SHOUTING", conversationId });
    const second = await settled(t, conversationId, before.steps.length + 1);
    expect(second.messages.length).toBeGreaterThan(before.messages.length);
    await t.stop();

    t = await startTestServer({ dataDir, examplesDir: EXAMPLES });
    const restored = ConversationAnswerSchema.parse((await t.call("GET", `/api/conversations/${conversationId}`)).body);
    expect(restored.messages).toEqual(second.messages);
    expect(restored.steps).toEqual(second.steps);
    expect(restored.agent).toMatchObject({ status: "completed", running: false });

    await t.call("POST", "/api/agents/text-helper/messages", { message: "Uppercase once more: again", conversationId });
    const third = await settled(t, conversationId, second.steps.length + 1);
    expect(third.steps.map((s) => s.step)).toEqual(third.steps.map((_, i) => i + 1));
    const events = EventsPageSchema.parse((await t.call("GET", `/api/streams/${conversationId}/events?limit=10000`)).body).events;
    expect(contiguousFrom(events, -1)).toBe(true);
    expect(events.filter((e) => e.type === "agent.finished")).toHaveLength(3);
  });

  it("refuses bad messages precisely", async () => {
    const cases: [string, unknown, number, string][] = [
      ["/api/agents/nobody/messages", { message: "hi" }, 404, "NOT_FOUND"],
      ["/api/agents/text-helper/messages", { message: "   " }, 400, "VALIDATION_FAILED"],
      ["/api/agents/text-helper/messages", { text: "hi" }, 400, "VALIDATION_FAILED"],
      ["/api/agents/text-helper/messages", { message: "hi", conversationId: "nope" }, 404, "NOT_FOUND"],
      ["/api/agents/calculator/messages", { message: "hi", conversationId }, 400, "VALIDATION_FAILED"],
      ["/api/agents/text-helper/messages", "{", 400, "INVALID_JSON"],
    ];
    for (const [path, body, status, code] of cases) {
      const res = await t.call("POST", path, body);
      expect({ path, status: res.status, code: ErrorBodySchema.safeParse(res.body).data?.error.code }).toEqual({ path, status, code });
    }
    expect((await t.call("GET", "/api/conversations/nope")).status).toBe(404);
    expect((await t.call("POST", "/api/conversations/nope/cancel")).status).toBe(404);
    expect((await t.call("POST", `/api/conversations/${conversationId}/permissions/r1`, { answer: "maybe" })).status).toBe(400);
    expect((await t.call("POST", `/api/conversations/${conversationId}/permissions/r1`, { answer: "once" })).status).toBe(404);
  });
});

describe("a busy agent", () => {
  let llm: ScriptedLlmServer;
  let t: TestServer;
  beforeAll(async () => {
    llm = await startScriptedLlmServer();
    t = await startTestServer({ examplesDir: EXAMPLES });
  });
  afterAll(async () => {
    await t.stop();
    await llm.stop();
  });

  it("refuses a second message while it works (409), and stops when cancelled", async () => {
    const profile = await t.call("POST", "/api/llm-profiles", { name: "Slow", baseUrl: llm.baseUrl, model: "slow", timeoutMs: 30_000 });
    const base = z.object({ agent: AgentProfileSchema }).parse((await t.call("GET", "/api/agents/text-helper")).body).agent;
    await t.call("PUT", "/api/agents/text-helper", { agent: { ...base, llmProfileId: ProfileIdAnswerSchema.parse(profile.body).profile.id }, baseRevision: base.revision });
    llm.enqueue({ kind: "text", chunks: ["I am ", "thinking"], delayMs: 10_000 });
    const first = await t.call("POST", "/api/agents/text-helper/messages", { message: "Take your time" });
    const id = SentSchema.parse(first.body).conversationId;
    await waitFor(async () => (llm.requests.length > 0 ? true : undefined));
    const second = await t.call("POST", "/api/agents/text-helper/messages", { message: "Are you there?", conversationId: id });
    expect(second.status).toBe(409);
    expect(ErrorBodySchema.parse(second.body).error.code).toBe("CONFLICT");
    expect((await t.call("POST", `/api/conversations/${id}/cancel`)).body).toEqual({ ok: true });
    const done = await waitFor(async () => {
      const res = await t.call("GET", `/api/conversations/${id}`);
      const answer = res.status === 200 ? ConversationAnswerSchema.parse(res.body) : undefined;
      return answer?.agent?.running === false ? answer : undefined;
    });
    expect(done.agent?.status).toBe("cancelled");
    expect(llm.requests[0].clientClosedEarly).toBe(true);
  });
});
