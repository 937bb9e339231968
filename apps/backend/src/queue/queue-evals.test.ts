import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { EvalRunSchema, type EvalCase } from "@weft/types";
import { ProfileIdAnswerSchema } from "../testing/answers.ts";
import { say } from "../testing/agent-eval-fixture.ts";
import { templateWorkflow, waitFor } from "../testing/test-server.ts";
import { startQueueCluster, type QueueCluster } from "./testing/queue-cluster.ts";

const RunAnswer = z.object({ run: EvalRunSchema });
const SuiteAnswer = z.object({ suite: z.object({ id: z.string() }) });

/**
 * Issue 33 item 4: an eval suite in queue mode. The API process runs no workflow itself: each case run is a job that
 * one of two `weft worker` processes (sharing PostgreSQL and Redis with it) takes; the eval run counts their results.
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
    cluster = await startQueueCluster({ name: "queue-evals", workers: 2, workerArgs: ["--concurrency", "2"], env: { WEFT_WORKER_LOCK_MS: "5000" } });
    api = cluster.api;
  });

  afterAll(async () => {
    await cluster?.stop();
    await llm?.stop();
  });

  it("runs 20 cases on the 2 workers and reports the exact pass rate (18 of 20)", async () => {
    expect((await api.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") })).status).toBe(201);
    const wrong = new Set([3, 14]);
    const cases: EvalCase[] = Array.from({ length: 20 }, (_, i) => ({
      id: `c${i}`,
      name: `case ${i}`,
      inputs: { topic: `t${i}` },
      assertions: [{ kind: "equals", output: "text", expected: wrong.has(i) ? `Wrong ${i}` : `Notes on t${i}` }],
    }));
    const suite = await api.call("POST", "/api/evals/suites", { name: "queued", target: { kind: "workflow", id: "notes" }, cases });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const started = await api.call("POST", `/api/evals/suites/${SuiteAnswer.parse(suite.body).suite.id}/runs`, { concurrency: 8 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const run = await awaitRun(RunAnswer.parse(started.body).run.id);
    expect(run.status).toBe("completed");
    const [side] = run.sides;
    expect(side.passRate).toBe(0.9);
    expect(side.results.filter((r) => !r.pass).map((r) => r.caseId)).toEqual(["c3", "c14"]);
    // Every case run was a job a worker took (the API process runs none).
    const taken = new Set(cluster.workers.flatMap((w) => w.runsTaken()));
    const runIds = side.results.map((r) => r.runId);
    expect(runIds.every((r) => r !== undefined && taken.has(r))).toBe(true);
    expect(new Set(runIds).size).toBe(20);
  });

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
