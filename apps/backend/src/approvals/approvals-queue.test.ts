import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { RunAnswerSchema, waitFor } from "../testing/test-server.ts";
import { StartedRunSchema } from "../testing/answers.ts";
import { startHitCounter } from "../testing/hit-counter.ts";
import { startQueueCluster, type QueueCluster } from "../queue/testing/queue-cluster.ts";

/** The side effects of the workflows' nodes, counted by path. */
const listener = startHitCounter({ amount: 7 });
const origin = listener.origin;
const count = (path: string) => listener.count(path);

const ApprovalList = z.object({ approvals: z.array(z.object({ id: z.string(), status: z.string() })) });

/**
 * Queue mode (PostgreSQL, Redis, an API process and `weft worker` processes): the worker that pauses a run holds
 * nothing of it — killed, a fresh worker resumes the run after the decision, from the shared database.
 */
describe("approvals in queue mode", () => {
  let cluster: QueueCluster;
  let api: QueueCluster["api"];

  beforeAll(async () => {
    cluster = await startQueueCluster({ name: "queue-approvals", workerArgs: ["--concurrency", "1"], env: { WEFT_WORKER_LOCK_MS: "5000" } });
    api = cluster.api;
  });

  afterAll(async () => {
    await listener.stop();
    await cluster?.stop();
  });

  const statusOf = async (runId: string) => RunAnswerSchema.parse((await api.call("GET", `/api/runs/${runId}`)).body).run.status;

  it("a run paused on a worker that is then killed resumes on a new worker after approval: the approved branch once, nothing upstream again", async () => {
    expect((await api.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [{ action: "allow", tool: "http.request", target: `${origin}/**` }] })).status).toBe(200);
    const request = (id: string, path: string) => ({ id, type: "http:request", inputs: { url: `${origin}/${path}`, method: "POST", retries: 0 } });
    const workflow = {
      id: "queued-gate",
      name: "Queued gate",
      nodes: [request("up", "upstream"), { id: "gate", type: "core:approval", config: { question: "Pay?" } }, request("yes", "approved"), request("no", "rejected")],
      edges: [
        { id: "e1", source: "up", sourceHandle: "body", target: "gate", targetHandle: "data" },
        { id: "e2", source: "gate", sourceHandle: "approved", target: "yes", targetHandle: "body" },
        { id: "e3", source: "gate", sourceHandle: "rejected", target: "no", targetHandle: "body" },
      ],
    };
    expect((await api.call("POST", "/api/workflows", { workflow })).status).toBe(201);
    const { runId } = StartedRunSchema.parse((await api.call("POST", "/api/workflows/queued-gate/runs", {})).body);
    await waitFor(async () => ((await statusOf(runId)) === "waiting" ? true : undefined), 120_000, "the run to wait");
    expect(count("/upstream")).toBe(1);

    // The worker that ran it goes away; a new one holds nothing of the run.
    await cluster.restartWorker(cluster.workers[0]);

    const [approval] = ApprovalList.parse((await api.call("GET", `/api/approvals?runId=${runId}`)).body).approvals;
    expect(approval?.status).toBe("pending");
    expect((await api.call("POST", `/api/approvals/${approval!.id}/decision`, { decision: "approved" })).status).toBe(200);
    await waitFor(async () => ((await statusOf(runId)) === "completed" ? true : undefined), 120_000, "the resumed run to complete");
    expect(count("/approved")).toBe(1);
    expect(count("/rejected")).toBe(0);
    expect(count("/upstream")).toBe(1);
  });
});
