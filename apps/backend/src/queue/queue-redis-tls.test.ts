import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { TEST_TOKEN } from "../testing/http-call.ts";
import { TestWsClient } from "../testing/ws-client.ts";
import { slowWorkflow } from "../testing/test-server.ts";
import { StartedRunSchema } from "../testing/answers.ts";
import type { ChildServer } from "../testing/child-server.ts";
import type { TestRedis } from "../testing/redis-server.ts";
import type { ChildWorker } from "./testing/child-worker.ts";
import { startQueueCluster, type QueueCluster } from "./testing/queue-cluster.ts";

const HealthSchema = z.object({ queue: z.object({ mode: z.string(), redis: z.object({ reachable: z.boolean() }), workers: z.number() }) });

/**
 * Queue mode against Redis as docs/deploy.md asks for it: TLS only (`rediss://`, the CA given as
 * NODE_EXTRA_CA_CERTS), an ACL user with a password, the default user off. Every connection — the
 * queues, the workers, pub/sub, the probe — must carry the user, the password and TLS, or nothing runs.
 */
describe("queue mode with Redis behind TLS and an ACL user", () => {
  let cluster: QueueCluster;
  let redis: TestRedis;
  let api: ChildServer;
  let worker: ChildWorker;

  beforeAll(async () => {
    cluster = await startQueueCluster({
      name: "queue-tls",
      redis: { acl: true, tls: true },
      projectDir: true,
      workerArgs: ["--concurrency", "1"],
      env: { WEFT_AUTH_TOKEN: TEST_TOKEN },
    });
    ({ redis, api } = cluster);
    [worker] = cluster.workers;
    if (!redis.caFile) throw new Error("the TLS server came without its CA");
    expect(cluster.env.NODE_EXTRA_CA_CERTS).toBe(redis.caFile);
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it("runs a workflow on the worker, relays its events to /ws, reports Redis and the worker in health, and logs no password", async () => {
    expect(redis.url).toMatch(/^rediss:\/\/weft:[^@]+@127\.0\.0\.1:\d+$/);
    expect((await api.call("POST", "/api/workflows", { workflow: slowWorkflow("short", 300) })).status).toBe(201);
    const ws = await TestWsClient.connect(api.url);
    try {
      const { runId } = StartedRunSchema.parse((await api.call("POST", "/api/workflows/short/runs", { inputs: {} })).body);
      ws.subscribe(runId);
      const seen = await ws.waitForRunEnd(runId, 60_000);
      expect(seen.at(-1)?.type).toBe("run.completed");
      expect(worker.runsTaken()).toContain(runId);
    } finally {
      ws.close();
    }
    const health = HealthSchema.parse((await api.call("GET", "/api/health")).body);
    expect(health.queue).toMatchObject({ mode: "queue", redis: { reachable: true } });
    expect(health.queue.workers).toBeGreaterThanOrEqual(1);
    const password = new URL(redis.url).password;
    expect(api.output()).not.toContain(password);
    expect(worker.output()).not.toContain(password);
  });
});
