import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { ConversationAnswerSchema, ProfileIdAnswerSchema, StartedRunSchema } from "../testing/answers.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { startTestServer, tempDir, waitFor, waitForRun, type TestServer } from "../testing/test-server.ts";
import { createTestUser } from "../testing/users.ts";
import { parseExposition, sampleValue } from "../ops/testing/exposition.ts";
import { UsageReportSchema } from "./usage-schemas.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
/** $ per million tokens: 2 input, 0.5 cached input, 8 output. */
const PRICES = { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 };
const KNOWN = { prompt_tokens: 1200, completion_tokens: 340, cached_tokens: 1000, reasoning_tokens: 300 };
/** (200 × 2 + 1000 × 0.5 + 340 × 8) / 1e6 */
const KNOWN_COST = 0.00362;

function chatWorkflow(id: string, profileId: string) {
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

async function report(t: TestServer, query: string, headers?: Record<string, string>) {
  const res = await t.call("GET", `/api/usage?${query}`, undefined, headers);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return UsageReportSchema.parse(res.body);
}

let t: TestServer;
let llm: ScriptedLlmServer;
let priced: string;
let unpriced: string;
beforeAll(async () => {
  llm = await startScriptedLlmServer();
  t = await startTestServer({ dataDir: tempDir(), examplesDir: EXAMPLES });
  priced = ProfileIdAnswerSchema.parse((await t.call("POST", "/api/llm-profiles", { name: "priced", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0, prices: PRICES })).body).profile.id;
  unpriced = ProfileIdAnswerSchema.parse((await t.call("POST", "/api/llm-profiles", { name: "unpriced", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 })).body).profile.id;
  expect((await t.call("POST", "/api/workflows", { workflow: chatWorkflow("priced-chat", priced) })).status).toBe(201);
  expect((await t.call("POST", "/api/workflows", { workflow: chatWorkflow("unpriced-chat", unpriced) })).status).toBe(201);
});
afterAll(async () => {
  await t.stop();
  await llm.stop();
});

async function run(workflowId: string, headers?: Record<string, string>) {
  const started = await t.call("POST", `/api/workflows/${workflowId}/runs`, { inputs: {} }, headers);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const answer = await waitForRun(t, StartedRunSchema.parse(started.body).runId);
  expect(answer.run.status, JSON.stringify(answer.run.error)).toBe("completed");
  return answer;
}

describe("tokens and cost of LLM calls", () => {
  it("shows the provider's exact tokens and the cost at the profile's prices on the invocation, the run and /api/usage (JSON and CSV)", async () => {
    llm.enqueue({ kind: "text", chunks: ["Hi", "!"], usage: KNOWN });
    const answer = await run("priced-chat");
    const call = answer.observations.find((o) => o.nodeId === "ask");
    expect(call?.outputs.usage).toEqual({ promptTokens: 1200, completionTokens: 340, totalTokens: 1540, cachedTokens: 1000, reasoningTokens: 300, costUsd: expect.closeTo(KNOWN_COST, 12) });

    const ofRun = await report(t, `runId=${answer.run.id}`);
    expect(ofRun.total).toMatchObject({ calls: 1, promptTokens: 1200, completionTokens: 340, cachedTokens: 1000, reasoningTokens: 300, totalTokens: 1540, unpricedCalls: 0, estimatedCalls: 0 });
    expect(ofRun.total.costUsd).toBeCloseTo(KNOWN_COST, 12);

    const grouped = await report(t, `runId=${answer.run.id}&groupBy=day,user,profile,workflow,model`);
    expect(grouped.rows).toEqual([
      expect.objectContaining({ day: new Date().toISOString().slice(0, 10), user: "owner", profile: priced, workflow: "priced-chat", model: llm.model, totalTokens: 1540 }),
    ]);

    const csv = await t.fetch(`/api/usage?runId=${answer.run.id}&groupBy=profile,workflow&format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const lines = (await csv.text()).trimEnd().split("\r\n");
    expect(lines).toEqual([
      "profile,workflow,calls,promptTokens,completionTokens,cachedTokens,reasoningTokens,totalTokens,costUsd,unpricedCalls,estimatedCalls",
      `${priced},priced-chat,1,1200,340,1000,300,1540,${ofRun.total.costUsd},0,0`,
    ]);

    const metrics = parseExposition(await (await t.fetch("/metrics")).text());
    const labels = { profile: priced, model: llm.model };
    expect(sampleValue(metrics, "weft_llm_calls_total", { ...labels, estimated: "false" })).toBe(1);
    expect(sampleValue(metrics, "weft_llm_tokens_total", { ...labels, kind: "prompt" })).toBe(1200);
    expect(sampleValue(metrics, "weft_llm_tokens_total", { ...labels, kind: "completion" })).toBe(340);
    expect(sampleValue(metrics, "weft_llm_tokens_total", { ...labels, kind: "cached" })).toBe(1000);
    expect(sampleValue(metrics, "weft_llm_cost_usd_total", labels)).toBeCloseTo(KNOWN_COST, 12);
  });

  it("estimates the tokens of a provider that reports none and marks them, and leaves the cost of an unpriced profile unknown", async () => {
    llm.enqueue({ kind: "text", chunks: ["No usage from me."], usage: null });
    const answer = await run("unpriced-chat");
    const usage = answer.observations.find((o) => o.nodeId === "ask")?.outputs.usage as Record<string, unknown>;
    expect(usage).toMatchObject({ completionTokens: Math.ceil("No usage from me.".length / 4), estimated: true });
    expect(usage.costUsd).toBeUndefined();
    const ofRun = await report(t, `runId=${answer.run.id}`);
    expect(ofRun.total).toMatchObject({ calls: 1, estimatedCalls: 1, unpricedCalls: 1, costUsd: null, completionTokens: usage.completionTokens, promptTokens: usage.promptTokens });
  });

  it("sums an agent conversation's calls", async () => {
    expect(
      (
        await t.call("POST", "/api/agents", {
          id: "usage-agent",
          name: "Usage agent",
          deliberationWorkflowId: "agent-deliberation",
          llmProfileId: priced,
          tools: [],
        })
      ).status,
    ).toBe(201);
    llm.enqueue({ kind: "text", chunks: ["All done."], usage: KNOWN });
    const sent = await t.call("POST", "/api/agents/usage-agent/messages", { message: "Hello" });
    expect(sent.status).toBe(202);
    const { conversationId } = sent.body as { conversationId: string };
    const conversation = await waitFor(async () => {
      const c = ConversationAnswerSchema.parse((await t.call("GET", `/api/conversations/${conversationId}`)).body);
      return c.agent && !c.agent.running && c.steps.length >= 1 ? c : undefined;
    });
    const step = conversation.steps[0]!;
    const ofConversation = await report(t, `conversationId=${conversationId}&groupBy=agent,run`);
    expect(ofConversation.rows).toEqual([expect.objectContaining({ agent: "usage-agent", run: step.deliberation.runId, calls: 1, totalTokens: 1540 })]);
    expect(ofConversation.total.costUsd).toBeCloseTo(KNOWN_COST, 12);
  });

  it("shows an owner everyone's usage and anyone else only their own", async () => {
    const editor = await createTestUser(t, "usage-editor", "editor");
    llm.enqueue({ kind: "text", chunks: ["Yours."], usage: { prompt_tokens: 5, completion_tokens: 7 } });
    await run("priced-chat", editor.bearer);
    const mine = await report(t, "groupBy=user", editor.bearer);
    expect(mine.rows).toEqual([expect.objectContaining({ user: editor.id, promptTokens: 5, completionTokens: 7 })]);
    const all = await report(t, "groupBy=user");
    expect(all.rows.map((r) => r.user).sort()).toEqual([editor.id, "owner"].sort());
    // Asking for someone else's is refused, not answered with nothing.
    const theirs = await t.call("GET", "/api/usage?groupBy=user&userId=owner", undefined, editor.bearer);
    expect(theirs.status).toBe(403);
    expect(ErrorBodySchema.parse(theirs.body).error.code).toBe("FORBIDDEN");
  });

  it("refuses a bad query with what is wrong", async () => {
    const res = await t.call("GET", "/api/usage?groupBy=day,colour");
    expect(res.status).toBe(400);
    expect(ErrorBodySchema.parse(res.body).error.message).toContain('"colour"');
    expect((await t.call("GET", "/api/usage?from=yesterday")).status).toBe(400);
  });
});

describe("an agent's call made before its run is stored", () => {
  it("names the run's workflow: the journal tells usage of each run as it starts, not once its row is written", async () => {
    // The journal writes 2 s after a run starts, so the agent's call is answered well before its run's row exists.
    const slow = await startTestServer({ dataDir: tempDir(), examplesDir: EXAMPLES, journal: { flushMs: 2000, spacingMs: 2000 } });
    try {
      const profile = ProfileIdAnswerSchema.parse((await slow.call("POST", "/api/llm-profiles", { name: "slow", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 })).body).profile.id;
      const agent = { id: "slow-agent", name: "Slow agent", deliberationWorkflowId: "agent-deliberation", llmProfileId: profile, tools: [] };
      expect((await slow.call("POST", "/api/agents", agent)).status).toBe(201);
      llm.enqueue({ kind: "text", chunks: ["Noted."], usage: { prompt_tokens: 11, completion_tokens: 3 } });
      const sent = await slow.call("POST", "/api/agents/slow-agent/messages", { message: "Hello" });
      expect(sent.status).toBe(202);
      const { conversationId } = sent.body as { conversationId: string };
      const step = await waitFor(async () => {
        const c = ConversationAnswerSchema.parse((await slow.call("GET", `/api/conversations/${conversationId}`)).body);
        return c.agent && !c.agent.running ? c.steps[0] : undefined;
      });
      const rows = (await report(slow, `conversationId=${conversationId}&groupBy=workflow,run,user`)).rows;
      expect(rows).toEqual([expect.objectContaining({ workflow: "agent-deliberation", run: step.deliberation.runId, user: "owner", totalTokens: 14 })]);
    } finally {
      await slow.stop();
    }
  });
});
