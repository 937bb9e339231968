import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ConversationSchema, EvalRunSchema, EvalSuiteSchema, type EvalRun } from "@weft/types";
import { ConversationAnswerSchema, SentMessageSchema } from "../testing/answers.ts";
import { FIVE_CASES, fiveCaseTurns, say, startAgentEvalFixture, type AgentEvalFixture } from "../testing/agent-eval-fixture.ts";
import { waitFor } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";

const SuiteAnswer = z.object({ suite: EvalSuiteSchema });
const SuitesAnswer = z.object({ suites: z.array(EvalSuiteSchema) });
const RunAnswer = z.object({ run: EvalRunSchema });
const Conversations = z.object({ conversations: z.array(ConversationSchema) });

let f: AgentEvalFixture;
let editor: TestUser;
let viewer: TestUser;
beforeAll(async () => {
  f = await startAgentEvalFixture();
  editor = await createTestUser(f.t, "eddie", "editor");
  viewer = await createTestUser(f.t, "vera", "viewer");
});
afterAll(() => f?.stop());

const logLines = () =>
  existsSync(join(f.projectDir, "log.txt"))
    ? readFileSync(join(f.projectDir, "log.txt"), "utf8")
        .split(";")
        .filter((l) => l !== "")
    : [];

async function createSuite(cases: unknown[], name: string): Promise<string> {
  const res = await editor.call("POST", "/api/evals/suites", { name, target: { kind: "agent", id: "logbook" }, cases });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return SuiteAnswer.parse(res.body).suite.id;
}

async function runSuite(suiteId: string, body: unknown): Promise<EvalRun> {
  const started = await editor.call("POST", `/api/evals/suites/${suiteId}/runs`, body);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const id = RunAnswer.parse(started.body).run.id;
  return waitFor(
    async () => {
      const run = RunAnswer.parse((await editor.call("GET", `/api/evals/runs/${id}`)).body).run;
      return run.status === "running" ? undefined : run;
    },
    180_000,
    `eval run ${id}`,
  );
}

describe("agent eval suites", () => {
  it("runs a 5-case suite as agent conversations: pass rate exactly 0.8, the failing case names the tool that was called", async () => {
    const suiteId = await createSuite(FIVE_CASES, "scribe basics");
    f.llm.enqueue(...fiveCaseTurns());
    const run = await runSuite(suiteId, { concurrency: 1 });
    expect(run.status).toBe("completed");
    const [side] = run.sides;
    expect(side.passRate, JSON.stringify(side.results, null, 1).slice(0, 6000)).toBe(0.8);
    expect([side.passed, side.failed]).toEqual([4, 1]);
    expect(side.results.map((r) => [r.caseId, r.pass])).toEqual([
      ["hello", true],
      ["writes", true],
      ["remembers", true],
      ["orders", true],
      ["no-write", false],
    ]);
    const failing = side.results[4];
    expect(failing.assertions).toHaveLength(1);
    expect(failing.assertions[0]).toMatchObject({ kind: "tool-not-called", pass: false });
    expect(failing.assertions[0].message).toBe('tool "fs:write" was called 1 time(s), first at step 1 with {"path":"@project/log.txt","content":"x;","mode":"append"}, but must not be');
    // The tools really ran (the cases are ordinary conversations): case 2's and case 5's writes are in the file.
    expect(logLines()).toEqual(["a", "x"]);
    expect(f.llm.pending()).toBe(0);

    // Each case's conversation is the agent's, visible in the chat: the two messages of case 3 and its answers.
    const ids = side.results.map((r) => r.conversationId);
    expect(ids.every((id) => typeof id === "string")).toBe(true);
    const listed = Conversations.parse((await viewer.call("GET", "/api/agents/logbook/conversations?limit=50")).body).conversations.map((c) => c.id);
    for (const id of ids) expect(listed).toContain(id);
    const remembers = ConversationAnswerSchema.parse((await viewer.call("GET", `/api/conversations/${ids[2]}`)).body);
    expect(remembers.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["Remember the number 7.", "Which number?"]);
    expect(side.results[2].outputs).toEqual({ answer: "7", status: "completed", steps: 2, tools: [] });
  });

  it("saves a conversation as a case in one click (its messages, its final answer expected) and runs it against a version side by side with the current profile", async () => {
    f.llm.enqueue(say("Forty-two."));
    const sent = await editor.call("POST", "/api/agents/logbook/messages", { message: "What is the answer?" });
    expect(sent.status).toBe(202);
    const conversationId = SentMessageSchema.parse(sent.body).conversationId;
    await waitFor(
      async () => {
        const view = ConversationAnswerSchema.parse((await editor.call("GET", `/api/conversations/${conversationId}`)).body);
        return view.agent && !view.agent.running && view.steps.length === 1 ? view : undefined;
      },
      60_000,
      "the conversation to be answered",
    );
    const suiteId = await createSuite([], "saved chats");
    const saved = await editor.call("POST", `/api/evals/suites/${suiteId}/cases/from-conversation`, { conversationId });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    const suite = SuiteAnswer.parse(saved.body).suite;
    expect(suite.cases).toEqual([
      { id: "case-1", name: `From conversation ${conversationId.slice(0, 8)}`, messages: ["What is the answer?"], assertions: [{ kind: "equals", expected: "Forty-two." }] },
    ]);

    // Version 2 changes the persona; the run compares version 1 with the current profile: each side's request carries its persona.
    const current = z.object({ agent: z.object({ revision: z.number() }).loose() }).parse((await editor.call("GET", "/api/agents/logbook")).body).agent;
    expect((await editor.call("PUT", "/api/agents/logbook", { agent: { ...current, persona: "PERSONA-TWO: you keep a log." }, baseRevision: current.revision })).status).toBe(200);
    const before = f.llm.chatBodies().length;
    f.llm.enqueue(say("Forty-two."), say("Six times seven."));
    const run = await runSuite(suiteId, { against: { version: 1 }, compare: {}, concurrency: 1 });
    expect(run.sides.map((s) => [s.side.version, s.passRate])).toEqual([
      [1, 1],
      [2, 0],
    ]);
    expect(run.sides[1].results[0].assertions[0]).toMatchObject({ kind: "equals", pass: false, expected: "Forty-two.", actual: "Six times seven." });
    const systemOf = (i: number) => JSON.stringify(z.object({ messages: z.array(z.unknown()) }).parse(f.llm.chatBodies()[i]).messages[0]);
    expect(systemOf(before)).toContain("PERSONA-ONE");
    expect(systemOf(before + 1)).toContain("PERSONA-TWO");
  });

  it("refuses a viewer creating, running or adding to an agent suite: nothing is stored, no conversation starts, the LLM is not asked", async () => {
    const suiteId = await createSuite([FIVE_CASES[0]], "viewer target");
    const conversationsBefore = Conversations.parse((await editor.call("GET", "/api/agents/logbook/conversations?limit=200")).body).conversations.length;
    const requestsBefore = f.llm.chatBodies().length;
    f.llm.enqueue(say("Hello!"));
    expect((await viewer.call("POST", "/api/evals/suites", { name: "mine", target: { kind: "agent", id: "logbook" }, cases: [FIVE_CASES[0]] })).status).toBe(403);
    expect((await viewer.call("POST", `/api/evals/suites/${suiteId}/runs`, {})).status).toBe(403);
    expect((await viewer.call("POST", `/api/evals/suites/${suiteId}/cases/from-conversation`, { conversationId: "any" })).status).toBe(403);
    // The effect: the suites are the editor's, unchanged, with no eval run; no conversation, no LLM request, no write.
    const suites = SuitesAnswer.parse((await viewer.call("GET", "/api/evals/suites?agentId=logbook")).body).suites;
    expect(suites.map((s) => s.name)).not.toContain("mine");
    expect(suites.find((s) => s.id === suiteId)?.cases).toEqual([FIVE_CASES[0]]);
    expect(z.object({ runs: z.array(z.unknown()) }).parse((await viewer.call("GET", `/api/evals/suites/${suiteId}/runs`)).body).runs).toEqual([]);
    expect(Conversations.parse((await editor.call("GET", "/api/agents/logbook/conversations?limit=200")).body).conversations).toHaveLength(conversationsBefore);
    expect(f.llm.chatBodies()).toHaveLength(requestsBefore);
    expect(f.llm.pending()).toBe(1);
  });

  it("says precisely what is wrong with an agent suite: a skill case in it, an unknown agent, a version that does not exist", async () => {
    const skillCase = { id: "s", name: "skill", inputs: { topic: "a" }, assertions: [{ kind: "equals", expected: "x" }] };
    const mixed = await editor.call("POST", "/api/evals/suites", { name: "mixed", target: { kind: "agent", id: "logbook" }, cases: [skillCase] });
    expect(mixed.status).toBe(400);
    expect(JSON.stringify(mixed.body)).toContain(`case \\"s\\" has inputs, but an agent suite's case has messages`);
    const empty = await editor.call("POST", "/api/evals/suites", {
      name: "empty",
      target: { kind: "agent", id: "logbook" },
      cases: [{ id: "e", name: "e", messages: [], assertions: [{ kind: "tool-called" }] }],
    });
    expect(empty.status).toBe(400);
    expect(JSON.stringify(empty.body)).toContain("body.cases.0.messages: a case needs at least one user message");
    const nobody = await editor.call("POST", "/api/evals/suites", { name: "x", target: { kind: "agent", id: "nobody" }, cases: [] });
    expect(nobody.status).toBe(404);
    const suiteId = await createSuite([FIVE_CASES[0]], "versions");
    const missing = await editor.call("POST", `/api/evals/suites/${suiteId}/runs`, { against: { version: 99 } });
    expect(missing.status).toBe(404);
    expect(JSON.stringify(missing.body)).toContain('agent \\"logbook\\" has no version 99');
  });
});
