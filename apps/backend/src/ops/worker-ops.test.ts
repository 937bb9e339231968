import { Database } from "bun:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { EventHub } from "../events/event-hub.ts";
import type { SqlHandle } from "../storage/sql-handle.ts";
import type { StoredEvent } from "../events/event-repository.ts";
import { startWorkerOps } from "./worker-ops.ts";
import { parseExposition, sampleValue } from "./testing/exposition.ts";

const TOKEN = "worker-metrics-token-0123456789abcdef";
const db = new Database(":memory:");
const gate = async <T>(work: () => T): Promise<Awaited<T>> => await work();
const sql: SqlHandle = { engine: "sqlite", db, gate };
const hub = new EventHub();
let redisUp = true;
const ops = startWorkerOps({ hub, sql, redisReachable: async () => redisUp, port: 0, token: TOKEN });
afterAll(async () => {
  await ops.stop();
  db.close();
});

/** The events a worker's journal publishes for one run of one delay node, as stored. */
function runEvents(runId: string): StoredEvent[] {
  const events = [
    { type: "run.started", runId, workflowId: "w", nodeCount: 1, inputs: {} },
    { type: "node.started", nodeId: "wait", invocationId: "wait", nodeType: "core:delay", inputs: {}, attempt: 1 },
    { type: "node.completed", nodeId: "wait", invocationId: "wait", outputs: {}, durationMs: 20, cached: false },
    { type: "run.completed", runId, outputs: {}, durationMs: 25 },
  ];
  return events.map((e, seq) => ({ streamId: runId, seq, type: e.type, json: JSON.stringify({ ...e, streamId: runId, seq, ts: Date.now() }) }));
}

describe("a worker's metrics and health listener", () => {
  it("serves the run and node metrics of the runs its hub publishes, to the token only", async () => {
    hub.publish(runEvents("r1"));
    hub.publish(runEvents("r2"));
    expect((await fetch(`${ops.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${ops.url}/metrics`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
    const res = await fetch(`${ops.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    const samples = parseExposition(await res.text());
    expect(sampleValue(samples, "weft_runs_finished_total", { status: "completed" })).toBe(2);
    expect(sampleValue(samples, "weft_node_duration_seconds_count", { node_type: "core:delay", status: "completed" })).toBe(2);
    expect(sampleValue(samples, "weft_node_duration_seconds_bucket", { node_type: "core:delay", status: "completed", le: "0.01" })).toBe(0);
    expect(sampleValue(samples, "weft_node_duration_seconds_bucket", { node_type: "core:delay", status: "completed", le: "0.05" })).toBe(2);
    // The queue gauges belong to the API process that owns the queue.
    expect(sampleValue(samples, "weft_queue_depth")).toBeUndefined();
  });

  it("answers /healthz without a credential, 503 once Redis does not answer", async () => {
    const up = await fetch(`${ops.url}/healthz`);
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({ ok: true, database: { engine: "sqlite", reachable: true }, redis: { reachable: true } });
    redisUp = false;
    const down = await fetch(`${ops.url}/healthz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ ok: false, redis: { reachable: false } });
  });
});
