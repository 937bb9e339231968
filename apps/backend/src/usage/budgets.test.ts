import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { BuilderSessionStateSchema, BuilderTurnResponseSchema, SceneStateViewSchema } from "@weft/types";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { ConversationAnswerSchema, ProfileIdAnswerSchema, StartedRunSchema } from "../testing/answers.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { startTestServer, tempDir, waitFor, waitForRun, type TestServer } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";
import { UsageReportSchema } from "./usage-schemas.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const PRICES = { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 };
/** 1540 tokens a call: with a budget of 1600, a first call fits and any second call would pass it. */
const KNOWN = { prompt_tokens: 1200, completion_tokens: 340 };
const BUDGET = 1600;
const BUILDER_BUDGET = 4000;
/** An agent conversation's: two calls of 2,800 tokens pass it; the second's estimate (~1,200, the prompt with its tools' documentation) still fits after the first. */
const AGENT_BUDGET = 4400;

/** Two LLM calls in a row: the second is the one a budget refuses. */
function twoCalls(id: string, profileId: string) {
  return {
    id,
    name: id,
    nodes: [
      { id: "first", type: "llm:chat", config: { profileId }, inputs: { prompt: "Say hi" } },
      { id: "second", type: "llm:chat", config: { profileId }, inputs: {} },
      { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
    ],
    edges: [
      { id: "e1", source: "first", sourceHandle: "text", target: "second", targetHandle: "prompt" },
      { id: "e2", source: "second", sourceHandle: "text", target: "out", targetHandle: "value" },
    ],
  };
}

/** Two LLM calls at once (no edge between them): each fits the budget alone, not both. */
function parallelCalls(id: string, profileId: string) {
  return {
    id,
    name: id,
    nodes: [
      { id: "left", type: "llm:chat", config: { profileId }, inputs: { prompt: "Say hi" } },
      { id: "right", type: "llm:chat", config: { profileId }, inputs: { prompt: "Say hi" } },
    ],
    edges: [],
  };
}

function oneCall(id: string, profileId: string) {
  return {
    id,
    name: id,
    nodes: [
      { id: "ask", type: "llm:chat", config: { profileId }, inputs: { prompt: "Say hi" } },
      { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
    ],
    edges: [{ id: "e1", source: "ask", sourceHandle: "text", target: "out", targetHandle: "value" }],
  };
}

let t: TestServer;
let llm: ScriptedLlmServer;
let profile: string;
let editor: TestUser;
beforeAll(async () => {
  llm = await startScriptedLlmServer();
  t = await startTestServer({ dataDir: tempDir(), examplesDir: EXAMPLES });
  profile = ProfileIdAnswerSchema.parse((await t.call("POST", "/api/llm-profiles", { name: "priced", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0, prices: PRICES })).body).profile.id;
  for (const workflow of [twoCalls("run-budget", profile), twoCalls("ceiling-budget", profile), oneCall("daily-budget", profile), parallelCalls("parallel-budget", profile)]) {
    expect((await t.call("POST", "/api/workflows", { workflow })).status).toBe(201);
  }
  editor = await createTestUser(t, "budget-editor", "editor");
});
afterAll(async () => {
  await t.stop();
  await llm.stop();
});

/** Chat-completion requests the LLM server has received so far. */
const calls = () => llm.chatBodies().length;

async function put(path: string, body: unknown, as?: TestUser) {
  return as ? as.call("PUT", path, body) : t.call("PUT", path, body);
}

async function runOf(workflowId: string, as?: TestUser) {
  const started = as ? await as.call("POST", `/api/workflows/${workflowId}/runs`, { inputs: {} }) : await t.call("POST", `/api/workflows/${workflowId}/runs`, { inputs: {} });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return waitForRun(t, StartedRunSchema.parse(started.body).runId);
}

describe("budgets stop work before it overspends", () => {
  it("stops a run with budget_exceeded before the call that would pass its workflow's token budget (the call never reaches the LLM)", async () => {
    expect((await put("/api/budgets/workflow/run-budget", { tokens: BUDGET })).status).toBe(200);
    llm.enqueue({ kind: "text", chunks: ["Hi"], usage: KNOWN });
    const before = calls();
    const answer = await runOf("run-budget");
    expect(answer.run.status).toBe("budget_exceeded");
    expect(calls() - before).toBe(1);
    const refused = answer.observations.find((o) => o.nodeId === "second");
    expect(refused?.error?.code).toBe("BUDGET_EXCEEDED");
    // Which budget, how much was used and how to raise it.
    expect(answer.run.error?.message).toContain(`token budget is ${BUDGET}`);
    expect(answer.run.error?.message).toContain('workflow "run-budget"');
    expect(answer.run.error?.message).toContain("1540 tokens are used");
    expect(JSON.stringify(refused?.error)).toContain("PUT /api/budgets/workflow/run-budget");
  });

  it("counts a call in flight against the budget: of two calls made at once that the budget fits only one of, one reaches the LLM", async () => {
    // Each call's estimate is ~515 tokens (its prompt, and 512 for the completion): one fits 800, two do not.
    expect((await put("/api/budgets/workflow/parallel-budget", { tokens: 800 })).status).toBe(200);
    // The answer waits, so the other call is checked while this one is in flight and its usage not yet stored.
    let answerFirst = () => {};
    llm.enqueue({ kind: "text", chunks: ["Hi"], usage: { prompt_tokens: 10, completion_tokens: 2 }, holdUntil: new Promise<void>((resolve) => (answerFirst = resolve)) });
    const before = calls();
    const started = await t.call("POST", "/api/workflows/parallel-budget/runs", { inputs: {} });
    expect(started.status).toBe(202);
    const { runId } = StartedRunSchema.parse(started.body);
    // The first call is at the LLM; the other is refused (with the fix) or sent too (without it) — either ends the wait.
    await waitFor(async () => {
      if (calls() - before >= 2) return true;
      const run = (await t.call("GET", `/api/runs/${runId}`)).body as { observations?: Array<{ error?: { code?: string } }> };
      return run.observations?.some((o) => o.error?.code === "BUDGET_EXCEEDED") ? true : undefined;
    });
    answerFirst();
    const answer = await waitForRun(t, runId);
    expect(calls() - before).toBe(1);
    expect(answer.run.status).toBe("budget_exceeded");
    const refused = answer.observations.filter((o) => o.error?.code === "BUDGET_EXCEEDED");
    expect(refused).toHaveLength(1);
    expect(refused[0]?.error?.message).toContain("reserved by 1 call(s) in flight");
  });

  it("tells an agent in its context when its budget is low, then ends its conversation with budget_exceeded before the call that would pass it", async () => {
    const LARGE = { prompt_tokens: 2700, completion_tokens: 100 };
    expect((await t.call("POST", "/api/agents", { id: "budget-agent", name: "Budget agent", deliberationWorkflowId: "agent-deliberation", llmProfileId: profile, tools: [] })).status).toBe(201);
    expect((await put("/api/budgets/agent/budget-agent", { tokens: AGENT_BUDGET })).status).toBe(200);
    llm.enqueue({ kind: "text", chunks: ["First."], usage: LARGE });
    const before = calls();
    const sent = await t.call("POST", "/api/agents/budget-agent/messages", { message: "Hello" });
    expect(sent.status).toBe(202);
    const { conversationId } = sent.body as { conversationId: string };
    const ended = (want: string, steps: number) =>
      waitFor(async () => {
        const c = ConversationAnswerSchema.parse((await t.call("GET", `/api/conversations/${conversationId}`)).body);
        return c.agent && !c.agent.running && c.agent.status === want && c.steps.length >= steps ? c : undefined;
      });
    await ended("completed", 1);
    expect(JSON.stringify(llm.chatBodies().at(-1))).not.toContain("Budget running low");
    // 2800 of 4400 used: the next call fits, and leaves under a fifth, so the agent is told.
    llm.enqueue({ kind: "text", chunks: ["Second."], usage: LARGE });
    expect((await t.call("POST", "/api/agents/budget-agent/messages", { message: "Again", conversationId })).status).toBe(202);
    await ended("completed", 2);
    expect(calls() - before).toBe(2);
    expect(JSON.stringify(llm.chatBodies().at(-1))).toContain("Budget running low");
    // 5600 used: the third call is refused before it is sent.
    expect((await t.call("POST", "/api/agents/budget-agent/messages", { message: "Once more", conversationId })).status).toBe(202);
    const c = await ended("budget_exceeded", 3);
    expect(calls() - before).toBe(2);
    expect(c.steps.at(-1)?.status).toBe("budget_exceeded");
    expect(c.steps.at(-1)?.reason).toContain(`agent conversation's token budget is ${AGENT_BUDGET}`);
  });

  it("pauses a scene with reason BUDGET_EXCEEDED before the call that would pass the scene's budget", async () => {
    expect((await t.call("POST", "/api/agents", { id: "budget-scene-agent", name: "Scene agent", deliberationWorkflowId: "agent-deliberation", llmProfileId: profile, tools: [] })).status).toBe(201);
    const scene = { id: "budget-scene", name: "Budget scene", agents: [{ instanceId: "a", profileId: "budget-scene-agent" }] };
    expect((await t.call("POST", "/api/scenes", { scene })).status).toBe(201);
    expect((await put("/api/budgets/scene/budget-scene", { tokens: BUDGET })).status).toBe(200);
    expect((await t.call("POST", "/api/scenes/budget-scene/start")).status).toBe(200);
    const state = async () => SceneStateViewSchema.parse((await t.call("GET", "/api/scenes/budget-scene/state")).body);
    llm.enqueue({ kind: "text", chunks: ["Done."], usage: KNOWN });
    const before = calls();
    expect((await t.call("POST", "/api/scenes/budget-scene/messages", { to: "a", text: "Hello" })).status).toBe(202);
    await waitFor(async () => (calls() - before === 1 && (await state()).agents.every((a) => a.status !== "deliberating") ? true : undefined));
    expect((await t.call("POST", "/api/scenes/budget-scene/messages", { to: "a", text: "Again" })).status).toBe(202);
    const paused = await waitFor(async () => {
      const s = await state();
      return s.status === "paused" ? s : undefined;
    });
    expect(paused.reason?.code).toBe("BUDGET_EXCEEDED");
    expect(paused.reason?.message).toContain(`scene's token budget is ${BUDGET}`);
    expect(calls() - before).toBe(1);
    await t.call("POST", "/api/scenes/budget-scene/stop");
  });

  it("holds a user's daily budget across runs, and only for that user", async () => {
    const daily = await createTestUser(t, "daily-user", "editor");
    // An editor may not set a user's budget, their own included.
    const self = await put(`/api/budgets/user/${daily.id}`, { tokens: 1_000_000 }, daily);
    expect(self.status).toBe(403);
    expect((await put(`/api/budgets/user/${daily.id}`, { tokens: BUDGET })).status).toBe(200);
    llm.enqueue({ kind: "text", chunks: ["One."], usage: KNOWN });
    const before = calls();
    expect((await runOf("daily-budget", daily)).run.status).toBe("completed");
    const second = await runOf("daily-budget", daily);
    expect(second.run.status).toBe("budget_exceeded");
    expect(second.run.error?.message).toContain("per-user token budget is 1600");
    expect(calls() - before).toBe(1);
    // Someone else's runs are not held by it.
    llm.enqueue({ kind: "text", chunks: ["Two."], usage: KNOWN });
    expect((await runOf("daily-budget", editor)).run.status).toBe("completed");
    expect(calls() - before).toBe(2);
  });

  it("counts the Builder AI's model calls for the user who sent the message, and holds their daily budget there too", async () => {
    const builder = await createTestUser(t, "builder-user", "editor");
    // The Builder's prompt (tools and context) is estimated at about 3,000 tokens: one call fits, a second after 1540 used does not.
    expect((await put(`/api/budgets/user/${builder.id}`, { tokens: BUILDER_BUDGET })).status).toBe(200);
    const opened = await builder.call("POST", "/api/builder/sessions", { target: { type: "workflow", workflowId: "daily-budget" }, llmProfileId: profile });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const sessionId = BuilderSessionStateSchema.parse(opened.body).session.id;
    const send = async (content: string) => {
      const sent = await builder.call("POST", `/api/builder/sessions/${sessionId}/messages`, { content });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      return BuilderTurnResponseSchema.parse(sent.body).turn;
    };
    llm.enqueue({ kind: "text", chunks: ["Nothing to change."], usage: KNOWN });
    const before = calls();
    const first = await send("Is this workflow fine?");
    expect(first.status, JSON.stringify(first)).toBe("completed");
    const used = await t.call("GET", `/api/usage?groupBy=user&userId=${builder.id}`);
    expect(UsageReportSchema.parse(used.body).rows).toEqual([expect.objectContaining({ user: builder.id, calls: 1, totalTokens: 1540 })]);
    // The next call would pass the user's tokens a day: refused before it is sent, with the budget named.
    const refused = await send("And now?");
    expect(refused).toMatchObject({ status: "failed", error: { llmCode: "BUDGET_EXCEEDED" } });
    expect(refused.error?.message).toContain(`per-user token budget is ${BUILDER_BUDGET}`);
    expect(calls() - before).toBe(1);
  });

  it("holds the owner's ceiling whatever budget an editor gives a workflow", async () => {
    // Set before the owner's ceiling existed: stored, and still narrowed by the ceiling below.
    expect((await put("/api/budgets/workflow/ceiling-budget", { tokens: 1_000_000 }, editor)).status).toBe(200);
    expect((await put("/api/budgets/owner/run", { tokens: BUDGET })).status).toBe(200);
    try {
      const above = await put("/api/budgets/workflow/ceiling-budget", { tokens: 2_000_000 }, editor);
      expect(above.status).toBe(400);
      expect(ErrorBodySchema.parse(above.body).error.code).toBe("BUDGET_ABOVE_CEILING");
      expect((await put("/api/budgets/owner/run", { tokens: 1_000_000 }, editor)).status).toBe(403);
      llm.enqueue({ kind: "text", chunks: ["Hi"], usage: KNOWN });
      const before = calls();
      const answer = await runOf("ceiling-budget", editor);
      expect(answer.run.status).toBe("budget_exceeded");
      expect(answer.run.error?.message).toContain("set by the owner's ceiling");
      expect(calls() - before).toBe(1);
    } finally {
      expect((await t.call("DELETE", "/api/budgets/owner/run")).status).toBe(204);
    }
  });

  it("refuses a budget that is not one, with what is wrong", async () => {
    const empty = await put("/api/budgets/workflow/x", {});
    expect(empty.status).toBe(400);
    expect(ErrorBodySchema.parse(empty.body).error.message).toContain("tokens and/or costUsd");
    expect((await put("/api/budgets/owner/week", { tokens: 5 })).status).toBe(400);
    expect((await put("/api/budgets/planet/x", { tokens: 5 })).status).toBe(400);
    expect((await put("/api/budgets/workflow/x", { tokens: -1 })).status).toBe(400);
  });
});
