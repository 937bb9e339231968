import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startRedis, type TestRedis } from "../testing/redis-server.ts";
import { spawnServer, type ChildServer } from "../testing/child-server.ts";
import { removeDir, tempDir } from "../testing/test-server.ts";
import { hookWorkflow, signedHeaders } from "../testing/webhooks.ts";
import { spawnWorker, type ChildWorker } from "../queue/testing/child-worker.ts";
import { queueTestDatabase, type QueueTestDatabase } from "../queue/testing/queue-test-database.ts";

const Activated = z.object({ secrets: z.array(z.object({ nodeId: z.string(), secret: z.string() })) });
const Runs = z.object({ runs: z.array(z.object({ id: z.string() })) });

/** Webhooks in queue mode: real Redis and PostgreSQL, two API processes, a `weft worker` executing the runs. */
describe("webhooks in queue mode", () => {
  let redis: TestRedis;
  let database: QueueTestDatabase;
  let dataDir: string;
  let apiA: ChildServer;
  let apiB: ChildServer;
  let worker: ChildWorker;

  beforeAll(async () => {
    redis = await startRedis();
    database = await queueTestDatabase();
    dataDir = tempDir("weft-queue-hooks-");
    const env = { WEFT_REDIS_URL: redis.url, WEFT_DATA_DIR: dataDir, WEFT_DEMO_LLM: "off", WEFT_WORKER_LOCK_MS: "5000", ...database.env };
    apiA = await spawnServer(dataDir, env);
    apiB = await spawnServer(dataDir, env);
    worker = await spawnWorker(env, ["--concurrency", "2"]);
  });

  afterAll(async () => {
    worker?.proc.kill("SIGKILL");
    for (const api of [apiA, apiB]) api?.proc.kill("SIGKILL");
    await Promise.all([worker?.proc.exited, apiA?.proc.exited, apiB?.proc.exited]);
    await redis?.stop();
    await database?.stop();
    removeDir(dataDir);
  });

  it("a signed request to one API process runs on the worker and answers its output; the same request sent to the other process stores no run", async () => {
    expect((await apiA.call("POST", "/api/workflows", { workflow: hookWorkflow("qhook", { path: "in", response: "wait", waitTimeoutMs: 60_000 }) })).status).toBe(201);
    const secret = Activated.parse((await apiA.call("PUT", "/api/workflows/qhook/active", { active: true })).body).secrets[0].secret;
    const body = JSON.stringify({ name: "Queue" });
    const headers = signedHeaders(secret, body);
    const first = await fetch(`${apiA.url}/hooks/qhook/in`, { method: "POST", body, headers });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ status: "completed", outputs: { greeting: "Hello Queue" } });
    const replay = await fetch(`${apiB.url}/hooks/qhook/in`, { method: "POST", body, headers });
    expect(replay.status).toBe(401);
    expect(Runs.parse((await apiB.call("GET", "/api/runs?workflowId=qhook")).body).runs).toHaveLength(1);
    // The other process takes a request signed anew, and its run executes on the worker too.
    const again = await fetch(`${apiB.url}/hooks/qhook/in`, { method: "POST", body, headers: signedHeaders(secret, body, Math.floor(Date.now() / 1000) + 1) });
    expect(await again.json()).toMatchObject({ status: "completed", outputs: { greeting: "Hello Queue" } });
  });
});
