import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { RunAnswerSchema, waitFor, type RunAnswer } from "../testing/test-server.ts";
import { StartedRunSchema } from "../testing/answers.ts";
import { startQueueCluster, type QueueCluster } from "./testing/queue-cluster.ts";

const RunListSchema = z.object({ runs: z.array(z.object({ id: z.string(), trigger: z.object({ kind: z.string(), runId: z.string().optional() }).optional() })) });

/** Queue mode: the worker that ran the failed run records and queues its error workflow's run; a worker runs it. */
describe("an error workflow in queue mode", () => {
  let cluster: QueueCluster;
  let api: QueueCluster["api"];

  const ended = (runId: string): Promise<RunAnswer> =>
    waitFor(
      async () => {
        const answer = RunAnswerSchema.safeParse((await api.call("GET", `/api/runs/${runId}`)).body);
        return answer.success && ["completed", "failed", "cancelled", "interrupted"].includes(answer.data.run.status) ? answer.data : undefined;
      },
      120_000,
      `run ${runId} to end`,
    );

  beforeAll(async () => {
    cluster = await startQueueCluster({ name: "queue-error-wf", workerArgs: ["--concurrency", "1"], env: { WEFT_PUBLIC_URL: "https://weft.example.test" } });
    api = cluster.api;
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it("the failed run's error workflow runs on a worker with its link", async () => {
    const handler = {
      id: "on-failure",
      name: "On failure",
      nodes: [
        { id: "i-link", type: "core:workflow-input", config: { name: "link", portType: "string" } },
        { id: "o-link", type: "core:workflow-output", config: { name: "link", portType: "string" } },
      ],
      edges: [{ id: "e", source: "i-link", sourceHandle: "value", target: "o-link", targetHandle: "value" }],
    };
    const failing = { id: "fails", name: "Fails", errorWorkflowId: "on-failure", nodes: [{ id: "parse", type: "core:json-parse", inputs: { text: "{" } }], edges: [] };
    expect((await api.call("POST", "/api/workflows", { workflow: handler })).status).toBe(201);
    expect((await api.call("POST", "/api/workflows", { workflow: failing })).status).toBe(201);
    const started = await api.call("POST", "/api/workflows/fails/runs", { inputs: {} });
    expect(started.status).toBe(202);
    const failedId = StartedRunSchema.parse(started.body).runId;
    expect((await ended(failedId)).run.status).toBe("failed");
    const errorRun = await waitFor(
      async () => RunListSchema.parse((await api.call("GET", "/api/runs?workflowId=on-failure&limit=50")).body).runs.find((r) => r.trigger?.runId === failedId),
      120_000,
      "the error workflow's run",
    );
    const { run } = await ended(errorRun.id);
    expect(run).toMatchObject({ status: "completed", trigger: { kind: "error", runId: failedId }, outputs: { link: `https://weft.example.test/#/workflows/fails/runs/${failedId}` } });
  });
});
