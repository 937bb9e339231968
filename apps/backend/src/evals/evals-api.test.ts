import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { EvalRunSchema, EvalSuiteSchema, WorkflowSchema, type EvalCase, type EvalRun, type Workflow } from "@weft/types";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { startTestServer, templateWorkflow, waitFor, waitForRun, type TestServer } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";

const SuiteAnswer = z.object({ suite: EvalSuiteSchema });
const SuitesAnswer = z.object({ suites: z.array(EvalSuiteSchema) });
const RunAnswer = z.object({ run: EvalRunSchema });
const RunsAnswer = z.object({ runs: z.array(z.object({ id: z.string() }).loose()) });
const WorkflowAnswer = z.object({ workflow: WorkflowSchema });
const errorOf = (body: unknown) => ErrorBodySchema.parse(body).error;

let t: TestServer;
let editor: TestUser;
let viewer: TestUser;
beforeAll(async () => {
  t = await startTestServer();
  editor = await createTestUser(t, "eva", "editor");
  viewer = await createTestUser(t, "vera", "viewer");
});
afterAll(() => t.stop());

/** A case of the "Notes on {{0}}" workflow expecting `expected` as its text. */
const textCase = (i: number, topic: string, expected: string): EvalCase => ({ id: `c${i}`, name: `case ${i}`, inputs: { topic }, assertions: [{ kind: "equals", output: "text", expected }] });

async function createSuite(as: TestUser, workflowId: string, cases: EvalCase[], name = "suite"): Promise<string> {
  const res = await as.call("POST", "/api/evals/suites", { name, target: { kind: "workflow", id: workflowId }, cases });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return SuiteAnswer.parse(res.body).suite.id;
}

/** Starts an eval run and waits for it to end; the stored record. */
async function runSuite(as: TestUser, suiteId: string, body: unknown = {}): Promise<EvalRun> {
  const started = await as.call("POST", `/api/evals/suites/${suiteId}/runs`, body);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const id = RunAnswer.parse(started.body).run.id;
  return waitFor(
    async () => {
      const run = RunAnswer.parse((await t.call("GET", `/api/evals/runs/${id}`)).body).run;
      return run.status === "running" ? undefined : run;
    },
    120_000,
    `eval run ${id}`,
  );
}

async function saveTemplate(workflow: Workflow, template: string): Promise<Workflow> {
  const changed = { ...workflow, nodes: workflow.nodes.map((n) => (n.id === "fill" ? { ...n, config: { ...n.config, template } } : n)) };
  const res = await editor.call("PUT", `/api/workflows/${workflow.id}`, { workflow: changed, baseRevision: workflow.revision });
  expect(res.status).toBe(200);
  return WorkflowAnswer.parse(res.body).workflow;
}

describe("eval suites", () => {
  it("reports the exact pass rate of a suite of 20 cases of which 3 fail, each case with its run, expected and actual", async () => {
    expect((await editor.call("POST", "/api/workflows", { workflow: templateWorkflow("notes20") })).status).toBe(201);
    const wrong = new Set([4, 11, 17]);
    const cases = Array.from({ length: 20 }, (_, i) => textCase(i, `topic ${i}`, wrong.has(i) ? `Wrong ${i}` : `Notes on topic ${i}`));
    const suiteId = await createSuite(editor, "notes20", cases);
    const run = await runSuite(editor, suiteId, { concurrency: 5 });
    expect(run.status).toBe("completed");
    expect(run.done).toBe(20);
    const [side] = run.sides;
    expect({ passed: side.passed, failed: side.failed, passRate: side.passRate }).toEqual({ passed: 17, failed: 3, passRate: 0.85 });
    expect(side.results.map((r) => r.caseId)).toEqual(cases.map((c) => c.id));
    expect(side.results.filter((r) => !r.pass).map((r) => r.caseId)).toEqual(["c4", "c11", "c17"]);
    const failed = side.results[4];
    expect(failed.assertions[0]).toMatchObject({ kind: "equals", pass: false, expected: "Wrong 4", actual: "Notes on topic 4" });
    // Each case is an ordinary run, linked from its result, that the editor who ran the suite started.
    const caseRun = await waitForRun(t, failed.runId ?? "");
    expect(caseRun.run.inputs).toEqual({ topic: "topic 4" });
    expect(caseRun.run.createdBy).toBe(editor.id);
    expect(side.side.version).toBe(1);
    // Progress went out on the eval run's own event stream: one event per case, then the end.
    const events = z.object({ events: z.array(z.object({ type: z.string() }).loose()) }).parse((await t.call("GET", `/api/streams/${run.id}/events`)).body).events;
    expect(events.filter((e) => e.type === "eval.progress")).toHaveLength(20);
    expect(events.at(-1)).toMatchObject({ type: "eval.finished", status: "completed", passRates: [0.85] });
  });

  it("runs two versions side by side, with results that differ where the versions differ", async () => {
    const created = await editor.call("POST", "/api/workflows", { workflow: templateWorkflow("notes-ab", "Notes on {{0}}") });
    const v1 = WorkflowAnswer.parse(created.body).workflow;
    await saveTemplate(v1, "Memo about {{0}}");
    const cases = [
      textCase(1, "apples", "Notes on apples"),
      { id: "c2", name: "mentions the topic", inputs: { topic: "pears" }, assertions: [{ kind: "contains" as const, output: "text", text: "pears" }] },
      { id: "c3", name: "memo form", inputs: { topic: "plums" }, assertions: [{ kind: "regex" as const, output: "text", pattern: "^Memo about \\w+$" }] },
    ];
    const suiteId = await createSuite(editor, "notes-ab", cases);
    const run = await runSuite(editor, suiteId, { against: { version: 1 }, compare: { version: 2 } });
    expect(run.sides.map((s) => s.side.version)).toEqual([1, 2]);
    expect(run.sides.map((s) => s.results.map((r) => r.pass))).toEqual([
      [true, true, false],
      [false, true, true],
    ]);
    expect(run.sides.map((s) => s.results[0].outputs)).toEqual([{ text: "Notes on apples" }, { text: "Memo about apples" }]);
    // Each side's case runs ran exactly that version.
    for (const [i, side] of run.sides.entries()) expect((await waitForRun(t, side.results[0].runId ?? "")).run.workflowVersion).toBe(i + 1);
    const missing = await editor.call("POST", `/api/evals/suites/${suiteId}/runs`, { compare: { version: 9 } });
    expect(missing.status).toBe(404);
    expect(errorOf(missing.body).message).toContain("has no version 9");
  });

  it("compares two LLM profiles on the same cases, with each case's tokens from the usage records", async () => {
    const skill = {
      id: "ask-llm",
      name: "Ask",
      nodes: [
        { id: "q", type: "core:workflow-input", config: { name: "q", portType: "string", required: true } },
        { id: "llm", type: "llm:chat", config: {} },
        { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
      ],
      edges: [
        { id: "e1", source: "q", sourceHandle: "value", target: "llm", targetHandle: "prompt" },
        { id: "e2", source: "llm", sourceHandle: "text", target: "out", targetHandle: "value" },
      ],
    };
    expect((await editor.call("POST", "/api/workflows", { workflow: skill })).status).toBe(201);
    const nowhere = await t.call("POST", "/api/llm-profiles", { name: "Nowhere", baseUrl: "http://127.0.0.1:9/v1", model: "m", timeoutMs: 2000, maxRetries: 0 });
    expect(nowhere.status).toBe(201);
    const suiteId = await createSuite(editor, "ask-llm", [
      {
        id: "hi",
        name: "hi",
        inputs: { q: "hello there" },
        assertions: [
          { kind: "contains", output: "text", text: "demo model" },
          { kind: "cost", maxTokens: 10_000 },
        ],
      },
    ]);
    const run = await runSuite(editor, suiteId, { against: { profileId: "demo" }, compare: { profileId: "nowhere" } });
    const [demo, other] = run.sides.map((s) => s.results[0]);
    expect(demo.pass).toBe(true);
    expect(demo.tokens).toBeGreaterThan(0);
    expect(other.pass).toBe(false);
    expect(other.runStatus).toBe("failed");
    expect(other.error).toContain("NETWORK");
  });

  it("judges with an LLM profile: the demo LLM's verdict passes an answer naming the rubric's phrases and fails one that does not", async () => {
    expect((await editor.call("POST", "/api/workflows", { workflow: templateWorkflow("notes-judge") })).status).toBe(201);
    const suiteId = await createSuite(editor, "notes-judge", [
      { id: "good", name: "good", inputs: { topic: "apples" }, assertions: [{ kind: "judge", output: "text", rubric: 'The notes must be about "apples".', profileId: "demo" }] },
      { id: "bad", name: "bad", inputs: { topic: "apples" }, assertions: [{ kind: "judge", output: "text", rubric: 'The notes must mention "pears" and "apples".' }] },
    ]);
    const run = await runSuite(editor, suiteId);
    const [good, bad] = run.sides[0].results;
    expect(good.assertions[0]).toMatchObject({ kind: "judge", pass: true });
    expect(bad.assertions[0]).toMatchObject({ kind: "judge", pass: false });
    expect(bad.assertions[0].message).toContain('does not mention "pears"');
    expect(run.sides[0].passRate).toBe(0.5);
  });

  it("saves a completed run as a test case in one call: its inputs, its outputs expected", async () => {
    expect((await editor.call("POST", "/api/workflows", { workflow: templateWorkflow("notes-save") })).status).toBe(201);
    const suiteId = await createSuite(editor, "notes-save", []);
    const started = z.object({ runId: z.string() }).parse((await editor.call("POST", "/api/workflows/notes-save/runs", { inputs: { topic: "figs" } })).body);
    await waitForRun(t, started.runId);
    const saved = await editor.call("POST", `/api/evals/suites/${suiteId}/cases/from-run`, { runId: started.runId });
    expect(saved.status).toBe(201);
    const suite = SuiteAnswer.parse((await t.call("GET", `/api/evals/suites/${suiteId}`)).body).suite;
    expect(suite.cases).toEqual([
      { id: "case-1", name: expect.stringContaining("From run") as string, inputs: { topic: "figs" }, assertions: [{ kind: "equals", expected: { text: "Notes on figs" } }] },
    ]);
    const run = await runSuite(editor, suiteId);
    expect(run.sides[0].passRate).toBe(1);
  });

  it("refuses a malformed suite with the field at fault, and a suite of a workflow that does not exist", async () => {
    const bad = await editor.call("POST", "/api/evals/suites", {
      name: "x",
      target: { kind: "workflow", id: "notes20" },
      cases: [{ id: "a", name: "a", inputs: {}, assertions: [{ kind: "number", expected: 3 }] }],
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad.body).message).toContain("cases.0.assertions.0.tolerance");
    const twice = await editor.call("POST", "/api/evals/suites", { name: "x", target: { kind: "workflow", id: "notes20" }, cases: [textCase(1, "a", "b"), textCase(1, "a", "b")] });
    expect(twice.status).toBe(400);
    expect(errorOf(twice.body).message).toContain('case id "c1" is used twice');
    const nowhere = await editor.call("POST", "/api/evals/suites", { name: "x", target: { kind: "workflow", id: "no-such" }, cases: [] });
    expect(nowhere.status).toBe(404);
  });

  it("lets a viewer read suites and results but neither create nor run one: nothing is stored, no run starts", async () => {
    expect((await editor.call("POST", "/api/workflows", { workflow: templateWorkflow("notes-view") })).status).toBe(201);
    const suiteId = await createSuite(editor, "notes-view", [textCase(1, "a", "Notes on a")]);
    const create = await viewer.call("POST", "/api/evals/suites", { name: "mine", target: { kind: "workflow", id: "notes-view" }, cases: [textCase(1, "a", "Notes on a")] });
    expect(create.status).toBe(403);
    const run = await viewer.call("POST", `/api/evals/suites/${suiteId}/runs`, {});
    expect(run.status).toBe(403);
    const edit = await viewer.call("PUT", `/api/evals/suites/${suiteId}`, { name: "changed", target: { kind: "workflow", id: "notes-view" }, cases: [] });
    expect(edit.status).toBe(403);
    // The effect: only the editor's suite exists, unchanged, with no eval run, and the workflow has no run.
    const suites = SuitesAnswer.parse((await viewer.call("GET", "/api/evals/suites?workflowId=notes-view")).body).suites;
    expect(suites.map((s) => [s.id, s.name, s.cases.length])).toEqual([[suiteId, "suite", 1]]);
    expect(RunsAnswer.parse((await viewer.call("GET", `/api/evals/suites/${suiteId}/runs`)).body).runs).toEqual([]);
    expect(RunsAnswer.parse((await t.call("GET", "/api/runs?workflowId=notes-view")).body).runs).toEqual([]);
  });
});
