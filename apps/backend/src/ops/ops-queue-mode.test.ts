import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { TEST_TOKEN } from "../testing/http-call.ts";
import { slowWorkflow, waitFor } from "../testing/test-server.ts";
import { StartedRunSchema } from "../testing/answers.ts";
import { startQueueCluster, type QueueCluster } from "../queue/testing/queue-cluster.ts";
import { parseExposition, sampleValue } from "./testing/exposition.ts";

/**
 * Health and metrics of an API process in queue mode: real Redis, a real `weft worker`, one SQLite
 * file shared by both (the queue mode's one-machine form; the API does not start on PostgreSQL yet).
 */
describe("ops in queue mode", () => {
  let cluster: QueueCluster;
  let api: QueueCluster["api"];

  beforeAll(async () => {
    cluster = await startQueueCluster({ name: "ops-queue", database: "sqlite", workerArgs: ["--concurrency", "1"] });
    api = cluster.api;
    expect((await api.call("POST", "/api/workflows", { workflow: slowWorkflow("slow", 30_000) })).status).toBe(201);
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  const HealthSchema = z.object({
    ok: z.boolean(),
    version: z.string(),
    database: z.object({ engine: z.string(), reachable: z.boolean() }),
    queue: z.object({ mode: z.literal("queue"), redis: z.object({ reachable: z.boolean() }), workers: z.number() }),
  });

  const scrape = async () => {
    const res = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(res.status).toBe(200);
    return parseExposition(await res.text());
  };

  it("reports the queue's depth, its active runs and the connected workers, read from Redis", async () => {
    const health = HealthSchema.parse(await (await fetch(`${api.url}/api/health`)).json());
    expect(health).toEqual({ ok: true, version: expect.any(String), database: { engine: "sqlite", reachable: true }, queue: { mode: "queue", redis: { reachable: true }, workers: 1 } });

    // One slot on the one worker: the first run holds it, the other two wait in the queue.
    const runIds: string[] = [];
    for (let i = 0; i < 3; i++) runIds.push(StartedRunSchema.parse((await api.call("POST", "/api/workflows/slow/runs", { inputs: {} })).body).runId);
    const samples = await waitFor(
      async () => {
        const s = await scrape();
        return sampleValue(s, "weft_runs_active") === 1 && sampleValue(s, "weft_queue_depth") === 2 ? s : undefined;
      },
      15_000,
      "one active run and two waiting",
    );
    expect(sampleValue(samples, "weft_queue_mode")).toBe(1);
    expect(sampleValue(samples, "weft_workers_active")).toBe(1);
    expect(sampleValue(samples, "weft_queue_jobs", { queue: "agents", state: "waiting" })).toBe(0);
    expect(sampleValue(samples, "weft_queue_jobs", { queue: "scenes", state: "active" })).toBe(0);
    for (const id of runIds) await api.call("POST", `/api/runs/${id}/cancel`);
  });

  it("answers 503, not ok, once Redis is gone", async () => {
    await cluster.redis.stop();
    const res = await waitFor(
      async () => {
        const r = await fetch(`${api.url}/api/health`);
        return r.status === 503 ? r : undefined;
      },
      15_000,
      "a 503 health answer",
    );
    expect(HealthSchema.parse(await res.json())).toMatchObject({ ok: false, database: { reachable: true }, queue: { redis: { reachable: false }, workers: 0 } });
  });
});
