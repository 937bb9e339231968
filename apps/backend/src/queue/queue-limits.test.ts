import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { templateWorkflow } from "../testing/test-server.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { startQueueCluster, type QueueCluster } from "./testing/queue-cluster.ts";

const StartedSchema = z.object({ runId: z.string(), status: z.literal("queued"), queuePosition: z.number().int() });

/** An API process in queue mode (real Redis and the shared database) with no worker: runs wait in Redis. */
describe("queue mode limits", () => {
  let cluster: QueueCluster;

  beforeAll(async () => {
    cluster = await startQueueCluster({ name: "queue-limits", workers: 0, env: { WEFT_MAX_QUEUED_RUNS: "3" } });
    expect((await cluster.api.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") })).status).toBe(201);
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it("answers each run's place in line and refuses with QUEUE_FULL once maxQueuedRuns wait, also after the count is read again", async () => {
    const { api } = cluster;
    const positions: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await api.call("POST", "/api/workflows/notes/runs", { inputs: { topic: `t${i}` } });
      expect(res.status).toBe(202);
      positions.push(StartedSchema.parse(res.body).queuePosition);
    }
    expect(positions).toEqual([1, 2, 3]);
    for (const wait of [0, 300]) {
      await Bun.sleep(wait);
      const refused = await api.call("POST", "/api/workflows/notes/runs", { inputs: { topic: "more" } });
      expect(refused.status).toBe(503);
      expect(ErrorBodySchema.parse(refused.body).error.details).toMatchObject({ reason: "QUEUE_FULL" });
    }
  });
});
