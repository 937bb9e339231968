import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { EvalRunSchema, type EvalCase } from "@weft/types";
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

  beforeAll(async () => {
    cluster = await startQueueCluster({ name: "queue-evals", workers: 2, workerArgs: ["--concurrency", "2"], env: { WEFT_WORKER_LOCK_MS: "5000" } });
    api = cluster.api;
  });

  afterAll(async () => {
    await cluster?.stop();
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
    const id = RunAnswer.parse(started.body).run.id;
    const run = await waitFor(
      async () => {
        const answer = RunAnswer.parse((await api.call("GET", `/api/evals/runs/${id}`)).body).run;
        return answer.status === "running" ? undefined : answer;
      },
      240_000,
      `eval run ${id}`,
    );
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
});
