import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startRedis, type TestRedis } from "../testing/redis-server.ts";
import { removeDir, startTestServer, templateWorkflow, type TestServer } from "../testing/test-server.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";

const RunListSchema = z.object({ runs: z.array(z.object({ id: z.string(), status: z.string() })) });

/** The API in queue mode, in this process, with its Redis stopped under it. */
describe("queue mode without Redis", () => {
  let redis: TestRedis;
  let t: TestServer;

  beforeAll(async () => {
    redis = await startRedis();
    t = await startTestServer({ redisUrl: redis.url });
    expect((await t.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") })).status).toBe(201);
  });

  afterAll(async () => {
    removeDir(t.dataDir);
  });

  it("answers 503 QUEUE_UNAVAILABLE at once, leaves no run waiting for nobody, and still stops promptly", async () => {
    // Queued while Redis is there; no worker runs, so it waits.
    const queued = z.object({ runId: z.string() }).parse((await t.call("POST", "/api/workflows/notes/runs", { inputs: { topic: "q" } })).body).runId;
    await redis.stop();
    const cancel = await t.call("POST", `/api/runs/${queued}/cancel`);
    expect(cancel.status).toBe(503);
    expect(JSON.stringify(cancel.body)).toContain("QUEUE_UNAVAILABLE");
    const started = Date.now();
    const res = await t.call("POST", "/api/workflows/notes/runs", { inputs: { topic: "x" } });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(res.status).toBe(503);
    const body = ErrorBodySchema.parse(res.body);
    expect(body.error.code).toBe("SERVICE_UNAVAILABLE");
    expect(JSON.stringify(body)).toContain("QUEUE_UNAVAILABLE");
    // Refused before it was recorded (or, had Redis gone between the checks, recorded and ended interrupted).
    const runs = RunListSchema.parse((await t.call("GET", "/api/runs")).body).runs;
    expect(runs.filter((r) => r.id !== queued && (r.status === "queued" || r.status === "running"))).toEqual([]);
    const stopping = Date.now();
    await t.stop();
    expect(Date.now() - stopping).toBeLessThan(10_000);
  });
});
