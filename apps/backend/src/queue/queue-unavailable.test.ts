import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { templateWorkflow } from "../testing/test-server.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { startQueueCluster, type QueueCluster } from "./testing/queue-cluster.ts";

const RunListSchema = z.object({ runs: z.array(z.object({ id: z.string(), status: z.string() })) });

/** An API process in queue mode (real Redis and the shared database), no worker, with its Redis stopped under it. */
describe("queue mode without Redis", () => {
  let cluster: QueueCluster;

  beforeAll(async () => {
    cluster = await startQueueCluster({ name: "queue-unavailable", workers: 0 });
    expect((await cluster.api.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") })).status).toBe(201);
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it("answers 503 QUEUE_UNAVAILABLE at once, leaves no run waiting for nobody, and still stops promptly", async () => {
    const { api, redis } = cluster;
    // Queued while Redis is there; no worker runs, so it waits.
    const queued = z.object({ runId: z.string() }).parse((await api.call("POST", "/api/workflows/notes/runs", { inputs: { topic: "q" } })).body).runId;
    await redis.stop();
    const cancel = await api.call("POST", `/api/runs/${queued}/cancel`);
    expect(cancel.status).toBe(503);
    expect(JSON.stringify(cancel.body)).toContain("QUEUE_UNAVAILABLE");
    const started = Date.now();
    const res = await api.call("POST", "/api/workflows/notes/runs", { inputs: { topic: "x" } });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(res.status).toBe(503);
    const body = ErrorBodySchema.parse(res.body);
    expect(body.error.code).toBe("SERVICE_UNAVAILABLE");
    expect(JSON.stringify(body)).toContain("QUEUE_UNAVAILABLE");
    // Refused before it was recorded (or, had Redis gone between the checks, recorded and ended interrupted).
    const runs = RunListSchema.parse((await api.call("GET", "/api/runs")).body).runs;
    expect(runs.filter((r) => r.id !== queued && (r.status === "queued" || r.status === "running"))).toEqual([]);
    // SIGTERM: the process's graceful stop (main.ts) exits 0 once it has closed.
    const stopping = Date.now();
    expect(await cluster.kill(api, "SIGTERM")).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(10_000);
  });
});
