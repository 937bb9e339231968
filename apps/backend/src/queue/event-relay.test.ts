import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { silentLogger } from "@weft/types";
import { openSqliteStorage, type Storage } from "../testing/storage.ts";
import { startRedis, type TestRedis } from "../testing/redis-server.ts";
import { removeDir, tempDir } from "../testing/test-server.ts";
import type { EventRepository, StoredEvent } from "../events/event-repository.ts";
import { runEnding } from "../runs/run-ending.ts";
import { until } from "../testing/until.ts";
import { EventRelay, RelayingEventHub } from "./event-relay.ts";
import { openRedis } from "./queue-names.ts";
import { deriveQueueKey, QueueSeal } from "./queue-seal.ts";

/** A run's events as a worker's journal stores them, batch by batch: started, `nodes` nodes, then its end with `outputs`. */
function runEvents(runId: string, nodes: number, outputs: Record<string, unknown>): StoredEvent[][] {
  const event = (seq: number, body: Record<string, unknown>): StoredEvent => ({
    streamId: runId,
    seq,
    type: String(body.type),
    json: JSON.stringify({ streamId: runId, seq, ts: Date.now(), ...body }),
  });
  const batches = [[event(0, { type: "run.started", runId, workflowId: "w", nodeCount: nodes, inputs: {} })]];
  for (let i = 0; i < nodes; i++) batches.push([event(i + 1, { type: "node.started", runId, nodeId: `n${i}`, invocationId: `n${i}#1` })]);
  batches.push([event(nodes + 1, { type: "run.completed", runId, outputs, durationMs: 3 })]);
  return batches;
}

/**
 * The queue mode's relay between a worker and an API process: real Redis, real SQLite events. A wait-mode webhook
 * (or a skill call) waits only for its run's end: the worker's announcement names it, and the API process reads that
 * one event from storage (it followed the whole stream before: every announced batch read).
 */
describe("event relay: waiting for a run's end", () => {
  let redis: TestRedis;
  let dir: string;
  let storage: Storage;
  const connections: Redis[] = [];
  let relay: EventRelay;
  let worker: RelayingEventHub;
  let api: RelayingEventHub;
  /** Events the API process read from storage. */
  let read = 0;
  const key = deriveQueueKey(randomBytes(32));

  const connect = async (name: string) => {
    const connection = await openRedis(redis.url, name, silentLogger);
    connections.push(connection);
    return connection;
  };

  /** Stores a run's events and announces them batch by batch, as a worker's journal does. */
  const work = async (from: RelayingEventHub, runId: string, outputs: Record<string, unknown>) => {
    for (const batch of runEvents(runId, 20, outputs)) {
      await storage.events.append(batch);
      from.publish(batch);
      await Bun.sleep(5); // batches a few ms apart, as a run's flushes come
    }
  };

  beforeAll(async () => {
    redis = await startRedis();
    dir = tempDir("weft-event-relay-");
    storage = await openSqliteStorage(dir);
    // The API's reads of storage, counted (the real table answers them).
    const events: EventRepository = {
      listAfter: async (streamId, after, limit) => {
        const page = await storage.events.listAfter(streamId, after, limit);
        read += page.length;
        return page;
      },
      lastSeq: (streamId) => storage.events.lastSeq(streamId),
      append: (batch) => storage.events.append(batch),
    };
    worker = new RelayingEventHub("worker-1", await connect("worker"), new QueueSeal(key, silentLogger), silentLogger);
    api = new RelayingEventHub("api-1", await connect("api"), new QueueSeal(key, silentLogger), silentLogger);
    relay = new EventRelay(api, events, await connect("api-events"), silentLogger);
    await relay.start();
  });

  afterAll(async () => {
    await relay?.stop();
    for (const c of connections) c.disconnect();
    await storage?.close();
    await redis?.stop();
    removeDir(dir);
  });

  it("a waiter gets the run's outputs reading only the run's last event from storage, not the 21 before it", async () => {
    read = 0;
    const ending = runEnding(api, storage, "run-1");
    await work(worker, "run-1", { greeting: "Hello relay" });
    expect(await ending).toEqual({ status: "completed", outputs: { greeting: "Hello relay" } });
    expect(read).toBe(1);
  });

  it("an ending announced by a process without the installation's key is not read: the waiter waits for the worker's own announcement", async () => {
    read = 0;
    const forger = new RelayingEventHub("forger", await connect("forger"), new QueueSeal(deriveQueueKey(randomBytes(32)), silentLogger), silentLogger);
    let settled = false;
    const ending = runEnding(api, storage, "run-2").finally(() => (settled = true));
    const last = runEvents("run-2", 1, { greeting: "Hello worker" }).at(-1) ?? [];
    await storage.events.append(last);
    const refused = api.seal.rejected().get("bad_signature") ?? 0;
    forger.publish(last);
    await until("the forged announcement refused", () => ((api.seal.rejected().get("bad_signature") ?? 0) > refused ? true : undefined));
    expect(read).toBe(0);
    expect(settled).toBe(false);
    worker.publish(last);
    expect(await ending).toEqual({ status: "completed", outputs: { greeting: "Hello worker" } });
    expect(read).toBe(1);
  });

  it("who waits only to know a run ended (an eval run's case) is told from the announcement, reading nothing from storage", async () => {
    read = 0;
    const ended: string[] = [];
    const stop = api.subscribeEnded("run-3", (streamId) => ended.push(streamId));
    try {
      await work(worker, "run-3", { greeting: "Hello ids" });
      await until("the ending told", () => (ended.length > 0 ? true : undefined));
      expect(ended).toEqual(["run-3"]);
      expect(read).toBe(0);
    } finally {
      stop();
    }
  });
});
