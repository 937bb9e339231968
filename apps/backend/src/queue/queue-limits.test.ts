import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startRedis, type TestRedis } from "../testing/redis-server.ts";
import { removeDir, startTestServer, templateWorkflow, type TestServer } from "../testing/test-server.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";

const StartedSchema = z.object({ runId: z.string(), status: z.literal("queued"), queuePosition: z.number().int() });

/** The API in queue mode, in this process, with no worker: runs wait in Redis. */
describe("queue mode limits", () => {
  let redis: TestRedis;
  let t: TestServer;

  beforeAll(async () => {
    redis = await startRedis();
    t = await startTestServer({ redisUrl: redis.url, maxQueuedRuns: 3 });
    expect((await t.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") })).status).toBe(201);
  });

  afterAll(async () => {
    await t.stop();
    await redis.stop();
    removeDir(t.dataDir);
  });

  it("answers each run's place in line and refuses with QUEUE_FULL once maxQueuedRuns wait, also after the count is read again", async () => {
    const positions: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.call("POST", "/api/workflows/notes/runs", { inputs: { topic: `t${i}` } });
      expect(res.status).toBe(202);
      positions.push(StartedSchema.parse(res.body).queuePosition);
    }
    expect(positions).toEqual([1, 2, 3]);
    for (const wait of [0, 300]) {
      await Bun.sleep(wait);
      const refused = await t.call("POST", "/api/workflows/notes/runs", { inputs: { topic: "more" } });
      expect(refused.status).toBe(503);
      expect(ErrorBodySchema.parse(refused.body).error.details).toMatchObject({ reason: "QUEUE_FULL" });
    }
  });
});
