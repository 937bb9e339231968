import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { silentLogger } from "@weft/types";
import { startRedis, type TestRedis } from "../testing/redis-server.ts";
import { AGENT_QUEUE, bullConnection, errorReporter, openRedis, QUEUE_PREFIX, RUN_JOB, RUN_QUEUE, SCENE_QUEUE, type RunJobData } from "./queue-names.ts";
import { queueModeProbe } from "./queue-probe.ts";

/**
 * The probe in this process on a real Redis alone, not on `startQueueCluster`: it counts the jobs and workers it
 * makes itself (a cluster's worker would take its jobs and be counted), needs no database or API process, and
 * stops Redis under the probe to see it say so.
 */
describe("queueModeProbe", () => {
  let redis: TestRedis;
  let client: Redis;
  let queue: Queue<RunJobData>;

  beforeAll(async () => {
    redis = await startRedis();
    client = await openRedis(redis.url, "probe-test", silentLogger);
    queue = new Queue<RunJobData>(RUN_QUEUE, { connection: bullConnection(redis.url), prefix: QUEUE_PREFIX });
    queue.on("error", errorReporter("queue", silentLogger));
  });

  afterAll(async () => {
    // Redis is gone by now: drop the connections rather than close them gracefully.
    // (A command that timed out is still queued in the connection, and disconnect waits for it: bounded here.)
    await Promise.race([queue.disconnect(), Bun.sleep(500)]);
    client.disconnect();
    await redis.stop();
  });

  it("reads queue depth, active jobs and connected workers from Redis, and says when Redis is gone", async () => {
    const probe = queueModeProbe(queue, client);
    expect(probe.mode).toBe("queue");
    await queue.add(RUN_JOB, { runId: "a" }, { jobId: "a" });
    await queue.add(RUN_JOB, { runId: "b" }, { jobId: "b" });
    expect(await probe.waiting()).toBe(2);
    expect(await probe.workers()).toBe(0);
    expect(await probe.redisReachable()).toBe(true);

    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const worker = new Worker<RunJobData>(RUN_QUEUE, () => held, { connection: bullConnection(redis.url), prefix: QUEUE_PREFIX, concurrency: 1 });
    try {
      await waitUntil(async () => (await probe.active()) === 1);
      expect(await probe.waiting()).toBe(1);
      expect(await probe.workers()).toBe(1);
    } finally {
      release();
      await worker.close();
    }

    // The agents' and scenes' queues are counted apart from the runs.
    const agents = new Queue(AGENT_QUEUE, { connection: bullConnection(redis.url), prefix: QUEUE_PREFIX });
    const scenes = new Queue(SCENE_QUEUE, { connection: bullConnection(redis.url), prefix: QUEUE_PREFIX });
    try {
      await agents.add("loop", { n: 1 });
      await agents.add("loop", { n: 2 });
      await scenes.add("scene", { n: 3 });
      expect(await queueModeProbe(queue, client, [agents, scenes]).otherJobs?.()).toEqual([
        { queue: AGENT_QUEUE, waiting: 2, active: 0 },
        { queue: SCENE_QUEUE, waiting: 1, active: 0 },
      ]);
    } finally {
      await Promise.all([agents.close(), scenes.close()]);
    }

    // Each answer comes without Redis (a probe that waited out the reconnect would hang the test): no clock is read.
    await redis.stop();
    expect(await probe.redisReachable()).toBe(false);
    await expect(probe.waiting()).rejects.toMatchObject({ code: "QUEUE_UNREACHABLE" });
  });
});

/** Generous: on a busy machine a new worker takes its first job when the CPU gets to it. */
async function waitUntil(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await Bun.sleep(20);
  }
}
