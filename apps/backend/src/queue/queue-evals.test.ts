import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { EvalRunSchema, type EvalCase, type EvalRun } from "@weft/types";
import { ProfileIdAnswerSchema } from "../testing/answers.ts";
import { say } from "../testing/agent-eval-fixture.ts";
import { templateWorkflow, waitFor } from "../testing/test-server.ts";
import type { WorkflowInput } from "@weft/types";
import { startQueueCluster, type QueueCluster } from "./testing/queue-cluster.ts";
import type { ChildWorker } from "./testing/child-worker.ts";

const RunAnswer = z.object({ run: EvalRunSchema });
const SuiteAnswer = z.object({ suite: z.object({ id: z.string() }) });
const EventsAnswer = z.object({ events: z.array(z.object({ type: z.string() }).loose()) });
const CaseRunAnswer = z.object({ run: z.object({ status: z.string(), inputs: z.record(z.string(), z.unknown()) }) });

/** The batch each run a worker executed came in (its `run taken {"runId", "batch"}` log lines). */
const batchesOf = (worker: ChildWorker): Map<string, string> => new Map([...worker.output().matchAll(/run taken \{"runId":"([^"]+)","batch":"([^"]+)"/g)].map((m): [string, string] => [m[1], m[2]]));

/** input → wait `ms` → output: a case that is still running while the test acts. */
const slowEcho = (ms: number): WorkflowInput => ({
  id: "slow-echo",
  name: "Slow echo",
  nodes: [
    { id: "topic", type: "core:workflow-input", config: { name: "topic", portType: "string", required: true } },
    { id: "wait", type: "core:delay", inputs: { ms } },
    { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
  ],
  edges: [
    { id: "e1", source: "topic", sourceHandle: "value", target: "wait", targetHandle: "value" },
    { id: "e2", source: "wait", sourceHandle: "value", target: "out", targetHandle: "value" },
  ],
});

/**
 * Issue 33 item 4: an eval suite in queue mode. The API process runs no workflow itself: the cases go out in batches,
 * one job per batch, which two `weft worker` processes (sharing PostgreSQL and Redis with it) take, each batch's cases
 * one after another; each case is still its own run, and the eval run counts their results.
 */
describe("an eval suite in queue mode", () => {
  let cluster: QueueCluster;
  let api: QueueCluster["api"];
  let llm: ScriptedLlmServer;

  const awaitRun = (id: string) =>
    waitFor(
      async () => {
        const answer = RunAnswer.parse((await api.call("GET", `/api/evals/runs/${id}`)).body).run;
        return answer.status === "running" ? undefined : answer;
      },
      240_000,
      `eval run ${id}`,
    );

  beforeAll(async () => {
    llm = await startScriptedLlmServer();
    cluster = await startQueueCluster({ name: "queue-evals", workers: 2, workerArgs: ["--concurrency", "2"], env: { WEFT_WORKER_LOCK_MS: "2000" } });
    api = cluster.api;
  });

  afterAll(async () => {
    await cluster?.stop();
    await llm?.stop();
  });

  const runSuite = async (workflowId: string, cases: EvalCase[], concurrency: number): Promise<EvalRun> => {
    const suite = await api.call("POST", "/api/evals/suites", { name: `queued ${workflowId}`, target: { kind: "workflow", id: workflowId }, cases });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const started = await api.call("POST", `/api/evals/suites/${SuiteAnswer.parse(suite.body).suite.id}/runs`, { concurrency });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    return awaitRun(RunAnswer.parse(started.body).run.id);
  };

  /** How many times each run started executing (its stream's `run.started` events). */
  const startsOf = async (runId: string): Promise<number> => EventsAnswer.parse((await api.call("GET", `/api/streams/${runId}/events`)).body).events.filter((e) => e.type === "run.started").length;

  it("runs 20 cases on the 2 workers in batches and reports the exact pass rate (18 of 20)", async () => {
    expect((await api.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") })).status).toBe(201);
    const wrong = new Set([3, 14]);
    const cases: EvalCase[] = Array.from({ length: 20 }, (_, i) => ({
      id: `c${i}`,
      name: `case ${i}`,
      inputs: { topic: `t${i}` },
      assertions: [{ kind: "equals", output: "text", expected: wrong.has(i) ? `Wrong ${i}` : `Notes on t${i}` }],
    }));
    // Concurrency 2: batches of ceil(20 / (2 × 4)) = 3 cases, 7 jobs for 20 runs.
    const run = await runSuite("notes", cases, 2);
    expect(run.status).toBe("completed");
    const [side] = run.sides;
    expect(side.passRate).toBe(0.9);
    expect(side.results.filter((r) => !r.pass).map((r) => r.caseId)).toEqual(["c3", "c14"]);
    // Every case run came in a batch a worker took (the API process runs none), each run taken once.
    const batches = new Map(cluster.workers.flatMap((w) => [...batchesOf(w)]));
    const runIds = side.results.map((r) => r.runId ?? "");
    expect(new Set(runIds).size).toBe(20);
    expect(runIds.every((r) => batches.has(r))).toBe(true);
    expect(new Set(runIds.map((r) => batches.get(r))).size).toBe(7);
    expect(cluster.workers.flatMap((w) => w.runsTaken()).filter((r) => runIds.includes(r))).toHaveLength(20);
    // Each case is still its own run, linkable from its result.
    const c3 = CaseRunAnswer.parse((await api.call("GET", `/api/runs/${side.results[3].runId}`)).body).run;
    expect(c3).toMatchObject({ status: "completed", inputs: { topic: "t3" } });
    // Progress went out per case on the eval run's stream (what the Evals view follows), then the end (journaled after
    // the record is stored: waited for).
    const events = await waitFor(
      async () => {
        const stored = EventsAnswer.parse((await api.call("GET", `/api/streams/${run.id}/events`)).body).events;
        return stored.at(-1)?.type === "eval.finished" ? stored : undefined;
      },
      60_000,
      `eval run ${run.id}'s eval.finished event`,
    );
    expect(events.filter((e) => e.type === "eval.progress")).toHaveLength(20);
    expect(events.at(-1)).toMatchObject({ type: "eval.finished", status: "completed", passRates: [0.9] });
  });

  it("a batch whose worker is killed mid-way ends every case once: ended cases are not run again, the rest run on the other worker", async () => {
    expect((await api.call("POST", "/api/workflows", { workflow: slowEcho(400) })).status).toBe(201);
    const cases: EvalCase[] = Array.from({ length: 12 }, (_, i) => ({
      id: `s${i}`,
      name: `slow ${i}`,
      inputs: { topic: `s${i}` },
      assertions: [{ kind: "equals", output: "text", expected: `s${i}` }],
    }));
    const suite = await api.call("POST", "/api/evals/suites", { name: "killed", target: { kind: "workflow", id: "slow-echo" }, cases });
    // Concurrency 1: batches of ceil(12 / 4) = 3 cases, one batch at a time.
    const started = await api.call("POST", `/api/evals/suites/${SuiteAnswer.parse(suite.body).suite.id}/runs`, { concurrency: 1 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = RunAnswer.parse(started.body).run.id;
    // The first case ended: the worker that took its batch is on the batch's next case. Kill it there.
    const firstRun = await waitFor(
      async () => {
        const answer = RunAnswer.parse((await api.call("GET", `/api/evals/runs/${id}`)).body).run;
        return answer.sides[0].results.find((r) => r.caseId === "s0")?.runId;
      },
      120_000,
      "the first case's end",
    );
    const holder = cluster.workers.find((w) => batchesOf(w).has(firstRun));
    if (!holder) throw new Error("no worker took the first case's run");
    const killed = batchesOf(holder);
    const survivor = cluster.workers.find((w) => w !== holder);
    if (!survivor) throw new Error("no second worker");
    await cluster.kill(holder);
    const run = await awaitRun(id);
    expect(run.status).toBe("completed");
    const results = run.sides[0].results;
    expect(results.map((r) => r.caseId).sort()).toEqual(cases.map((c) => c.id).sort());
    const runIds = results.map((r) => r.runId ?? "");
    expect(new Set(runIds).size).toBe(12);
    // Each run started at most once: the batch handed over skipped what had ended. (A worker logs "taken" just before
    // it starts a run; killed in between, the run was still queued and the other worker ran it: logged twice, run once.)
    for (const runId of runIds) expect(await startsOf(runId)).toBeLessThanOrEqual(1);
    // The case the killed worker was running ends `interrupted` (never run twice); every other case ran and passed.
    const notPassed = results.filter((r) => !r.pass);
    expect(notPassed.length).toBeLessThanOrEqual(1);
    for (const r of notPassed) expect(r.runStatus).toBe("interrupted");
    expect(results.filter((r) => r.pass)).toHaveLength(12 - notPassed.length);
    // The killed batch's 3 runs were each taken by one of the two: what never started there ran on the survivor.
    const killedBatch = killed.get(firstRun);
    const inBatch = [...killed, ...batchesOf(survivor)].filter(([, batch]) => batch === killedBatch).map(([runId]) => runId);
    expect(new Set(inBatch).size).toBe(3);
  });

  it("a batch whose worker stalls past its lock goes on on the other worker; resumed, the stalled worker writes nothing more of it and takes runs again", async () => {
    // topic and ms in → wait ms → topic out: the case stalled in is long, so it is still waiting when its worker resumes.
    const waitEcho: WorkflowInput = {
      id: "wait-echo",
      name: "Wait echo",
      nodes: [
        { id: "topic", type: "core:workflow-input", config: { name: "topic", portType: "string", required: true } },
        { id: "ms", type: "core:workflow-input", config: { name: "ms", portType: "integer", required: true } },
        { id: "wait", type: "core:delay" },
        { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
      ],
      edges: [
        { id: "e1", source: "topic", sourceHandle: "value", target: "wait", targetHandle: "value" },
        { id: "e2", source: "ms", sourceHandle: "value", target: "wait", targetHandle: "ms" },
        { id: "e3", source: "wait", sourceHandle: "value", target: "out", targetHandle: "value" },
      ],
    };
    // Two workers (the test before killed one): one to stall, one to take its batch over.
    while (cluster.workers.length < 2) await cluster.startWorker(undefined, ["--concurrency", "2"]);
    expect((await api.call("POST", "/api/workflows", { workflow: waitEcho })).status).toBe(201);
    const cases: EvalCase[] = Array.from({ length: 9 }, (_, i) => ({
      id: `w${i}`,
      name: `w ${i}`,
      inputs: { topic: `w${i}`, ms: i === 1 ? 15_000 : 200 },
      assertions: [{ kind: "equals", output: "text", expected: `w${i}` }],
    }));
    const suite = await api.call("POST", "/api/evals/suites", { name: "stalled", target: { kind: "workflow", id: "wait-echo" }, cases });
    // Concurrency 1: batches of ceil(9 / 4) = 3 cases, one batch at a time; w1 (15 s) is the first batch's second case.
    const started = await api.call("POST", `/api/evals/suites/${SuiteAnswer.parse(suite.body).suite.id}/runs`, { concurrency: 1 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = RunAnswer.parse(started.body).run.id;
    const Listed = z.object({ runs: z.array(z.object({ id: z.string() }).loose()) });
    const w1Run = await waitFor(
      async () => {
        for (const { id: runId } of Listed.parse((await api.call("GET", "/api/runs?workflowId=wait-echo&status=running")).body).runs) {
          if (CaseRunAnswer.parse((await api.call("GET", `/api/runs/${runId}`)).body).run.inputs.ms === 15_000) return runId;
        }
        return undefined;
      },
      120_000,
      "case w1 running",
    );
    const holder = cluster.workers.find((w) => batchesOf(w).has(w1Run));
    const batch = holder && batchesOf(holder).get(w1Run);
    if (!holder || batch === undefined) throw new Error("no worker took w1's run in a batch");
    const survivor = cluster.workers.find((w) => w !== holder);
    if (!survivor) throw new Error("no second worker");
    // Stalled (as a blocked event loop is): its lock (2 s) lapses and the other worker is handed the batch.
    holder.proc.kill("SIGSTOP");
    try {
      await waitFor(async () => ([...batchesOf(survivor).values()].includes(batch) ? true : undefined), 60_000, "the batch handed over to the other worker");
    } finally {
      holder.proc.kill("SIGCONT");
    }
    const run = await awaitRun(id);
    expect(run.status).toBe("completed");
    const results = run.sides[0].results;
    expect(results).toHaveLength(9);
    // The case that stalled ended once, `interrupted` by the worker that took the batch over; every other case passed.
    expect(results.find((r) => r.caseId === "w1")).toMatchObject({ runId: w1Run, runStatus: "interrupted" });
    expect(results.filter((r) => r.pass)).toHaveLength(8);
    const endings = new Set(["run.completed", "run.failed", "run.cancelled"]);
    for (const r of results) {
      const events = EventsAnswer.parse((await api.call("GET", `/api/streams/${r.runId}/events`)).body).events;
      expect(
        events.filter((e) => endings.has(e.type)),
        r.caseId,
      ).toHaveLength(1);
      expect(events.filter((e) => e.type === "run.started").length).toBeLessThanOrEqual(1);
    }
    // Resumed, the stalled worker drops w1 (15 s of waiting left) as another worker's: it says so, rather than finish it
    // later and fail to store events numbered as the other worker's (w1's end), which left its writes stuck, retried forever.
    const settled = await waitFor(
      async () => (holder.output().includes(`its end is not recorded here {"runId":"${w1Run}"`) || holder.output().includes("storing events failed") ? holder.output() : undefined),
      60_000,
      "the stalled worker to drop w1",
    );
    expect(settled).not.toContain("storing events failed");
    // And it still works: ten quick cases at concurrency 4 run on both workers and all end.
    expect((await api.call("POST", "/api/workflows", { workflow: templateWorkflow("after-stall") })).status).toBe(201);
    const after = await runSuite(
      "after-stall",
      Array.from({ length: 10 }, (_, i) => ({ id: `a${i}`, name: `a ${i}`, inputs: { topic: `a${i}` }, assertions: [{ kind: "equals", output: "text", expected: `Notes on a${i}` }] })),
      4,
    );
    expect(after.sides[0].passed).toBe(10);
    const afterRuns = new Set(after.sides[0].results.map((r) => r.runId));
    expect([...batchesOf(holder).keys()].some((r) => afterRuns.has(r))).toBe(true);
  });

  it("a case cancelled while it waits in a batch its worker already read ends cancelled, never started; the batch goes on", async () => {
    expect((await api.call("POST", "/api/workflows", { workflow: { ...slowEcho(2500), id: "slow-cancel" } })).status).toBe(201);
    const cases: EvalCase[] = Array.from({ length: 9 }, (_, i) => ({ id: `k${i}`, name: `k ${i}`, inputs: { topic: `k${i}` }, assertions: [{ kind: "equals", output: "text", expected: `k${i}` }] }));
    const suite = await api.call("POST", "/api/evals/suites", { name: "cancelled in batch", target: { kind: "workflow", id: "slow-cancel" }, cases });
    // Concurrency 1: batches of ceil(9 / 4) = 3 cases, one batch at a time, so while a case runs the runs queued are its
    // batch's next ones. Each case takes 2.5 s: long enough for the cancels to arrive before they start, on a busy machine.
    const started = await api.call("POST", `/api/evals/suites/${SuiteAnswer.parse(suite.body).suite.id}/runs`, { concurrency: 1 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const Listed = z.object({ runs: z.array(z.object({ id: z.string(), status: z.string() }).loose()) });
    const listed = async (status: string) => Listed.parse((await api.call("GET", `/api/runs?workflowId=slow-cancel&status=${status}`)).body).runs.map((r) => r.id);
    // A case running (its batch's records and cancel keys were read as the batch began) with cases queued behind it.
    const waiting = await waitFor(
      async () => {
        if ((await listed("running")).length === 0) return undefined;
        const queued = await listed("queued");
        return queued.length > 0 ? queued : undefined;
      },
      120_000,
      "a running case with queued cases in its batch",
    );
    for (const runId of waiting) expect((await api.call("POST", `/api/runs/${runId}/cancel`)).status).toBe(200);
    const run = await awaitRun(RunAnswer.parse(started.body).run.id);
    expect(run.status).toBe("completed");
    const results = run.sides[0].results;
    expect(results).toHaveLength(9);
    for (const runId of waiting) {
      // Ended `cancelled` without starting: the cancel reached the worker holding its batch, not only a key read later.
      expect(results.find((r) => r.runId === runId)?.runStatus).toBe("cancelled");
      expect(await startsOf(runId)).toBe(0);
    }
    expect(results.filter((r) => r.pass)).toHaveLength(9 - waiting.length);
  });

  it("an LLM profile or a budget saved while a batch runs is used by the batch's next case (what the worker remembered is forgotten)", async () => {
    // A model server of its own: the agent suite's test below reads every request the shared one got.
    const llm = await startScriptedLlmServer();
    try {
      await savedMidBatch(llm);
    } finally {
      await llm.stop();
    }
  });

  const savedMidBatch = async (llm: ScriptedLlmServer) => {
    const made = await api.call("POST", "/api/llm-profiles", { name: "batch profile", baseUrl: llm.baseUrl, model: "model-one", maxRetries: 0, timeoutMs: 60_000 });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const profileId = ProfileIdAnswerSchema.parse(made.body).profile.id;
    const workflow: WorkflowInput = {
      id: "asks",
      name: "Asks",
      nodes: [
        { id: "topic", type: "core:workflow-input", config: { name: "topic", portType: "string", required: true } },
        { id: "llm", type: "llm:chat", config: { profileId } },
        { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
      ],
      edges: [
        { id: "e1", source: "topic", sourceHandle: "value", target: "llm", targetHandle: "prompt" },
        { id: "e2", source: "llm", sourceHandle: "text", target: "out", targetHandle: "value" },
      ],
    };
    expect((await api.call("POST", "/api/workflows", { workflow })).status).toBe(201);
    const releases: Array<() => void> = [];
    const held = () => new Promise<void>((resolve) => releases.push(resolve));
    // Concurrency 1: batches of ceil(12 / 4) = 3 cases, one after another on one worker: b0, b1, b2 together.
    const cases: EvalCase[] = Array.from({ length: 12 }, (_, i) => ({ id: `b${i}`, name: `b ${i}`, inputs: { topic: `b${i}` }, assertions: [{ kind: "contains", output: "text", text: "o" }] }));
    const suite = await api.call("POST", "/api/evals/suites", { name: "saved mid-batch", target: { kind: "workflow", id: "asks" }, cases });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    llm.enqueue({ kind: "text", chunks: ["one"], holdUntil: held() }, { kind: "text", chunks: ["two"], holdUntil: held() });
    const started = await api.call("POST", `/api/evals/suites/${SuiteAnswer.parse(suite.body).suite.id}/runs`, { concurrency: 1 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const chats = (count: number) => waitFor(async () => (llm.chatBodies().length >= count ? llm.chatBodies() : undefined), 120_000, `${count} LLM call(s)`);
    // b0's call is in flight (its worker has read the profile and the budgets): the profile's model changes.
    expect((await chats(1))[0]).toMatchObject({ model: "model-one" });
    expect((await api.call("PUT", `/api/llm-profiles/${profileId}`, { model: "model-two" })).status).toBe(200);
    releases[0]();
    // b1, next in the batch on that worker, asks with the new model; while it is in flight the workflow gets a budget no call fits.
    expect((await chats(2))[1]).toMatchObject({ model: "model-two" });
    expect((await api.call("PUT", "/api/budgets/workflow/asks", { tokens: 1 })).status).toBe(200);
    releases[1]();
    const run = await awaitRun(RunAnswer.parse(started.body).run.id);
    const results = run.sides[0].results;
    expect(results.slice(0, 2).map((r) => r.pass)).toEqual([true, true]);
    // b2 (same batch) and every later case: refused by the budget before any request went out.
    expect(results.slice(2).every((r) => r.runStatus === "budget_exceeded")).toBe(true);
    expect(llm.chatBodies()).toHaveLength(2);
    const batches = new Map(cluster.workers.flatMap((w) => [...batchesOf(w)]));
    expect(new Set(results.slice(0, 3).map((r) => batches.get(r.runId ?? ""))).size).toBe(1);
  };

  it("runs an agent suite's sides on the workers with the chosen version and LLM profile, not the stored profile", async () => {
    const profileOf = async (name: string, model: string) => {
      const made = await api.call("POST", "/api/llm-profiles", { name, baseUrl: llm.baseUrl, model, maxRetries: 0, timeoutMs: 60_000 });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      return ProfileIdAnswerSchema.parse(made.body).profile.id;
    };
    const stored = await profileOf("stored", "model-stored");
    const chosen = await profileOf("chosen", "model-chosen");
    const agent = { id: "clerk", name: "Clerk", persona: "PERSONA-ONE: you answer briefly.", deliberationWorkflowId: "agent-deliberation", llmProfileId: stored, maxSteps: 2 };
    expect((await api.call("POST", "/api/agents", agent)).status).toBe(201);
    // Version 2 (the stored profile) changes the persona; side 1 runs version 1, side 2 the stored profile with the other LLM profile.
    const current = z.object({ agent: z.object({ revision: z.number() }).loose() }).parse((await api.call("GET", "/api/agents/clerk")).body).agent;
    expect((await api.call("PUT", "/api/agents/clerk", { agent: { ...current, persona: "PERSONA-TWO: you answer briefly." }, baseRevision: current.revision })).status).toBe(200);
    const suite = await api.call("POST", "/api/evals/suites", {
      name: "clerk",
      target: { kind: "agent", id: "clerk" },
      cases: [{ id: "hi", name: "greets", messages: ["Say hello."], assertions: [{ kind: "equals", expected: "Hello!" }] }],
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    llm.enqueue(say("Hello!"), say("Hello!"));
    const started = await api.call("POST", `/api/evals/suites/${SuiteAnswer.parse(suite.body).suite.id}/runs`, { against: { version: 1 }, compare: { profileId: chosen }, concurrency: 1 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const run = await awaitRun(RunAnswer.parse(started.body).run.id);
    expect(run.status).toBe("completed");
    expect(run.sides.map((s) => [s.side.version, s.side.profileId, s.passRate])).toEqual([
      [1, undefined, 1],
      [undefined, chosen, 1],
    ]);
    // What each side's request carried: version 1's persona with the stored LLM profile's model; the stored persona with the chosen model.
    const Body = z.object({ model: z.string(), messages: z.array(z.unknown()) });
    const seen = llm.chatBodies().map((b) => {
      const body = Body.parse(b);
      return [body.model, JSON.stringify(body.messages[0]).match(/PERSONA-\w+/)?.[0]];
    });
    expect(seen.sort()).toEqual([
      ["model-chosen", "PERSONA-TWO"],
      ["model-stored", "PERSONA-ONE"],
    ]);
    // Both conversations' loops ran on a worker.
    const logs = cluster.workers.map((w) => w.output()).join("\n");
    for (const result of run.sides.map((s) => s.results[0])) expect(logs).toContain(`agent loop taken {"conversationId":"${result.conversationId}"`);
  });
});
