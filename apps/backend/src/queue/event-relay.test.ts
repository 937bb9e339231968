import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { silentLogger } from "@weft/types";
import { openSqliteStorage, type Storage } from "../testing/storage.ts";
import { startRedis, type TestRedis } from "../testing/redis-server.ts";
import { removeDir, tempDir } from "../testing/test-server.ts";
import type { EventRepository, StoredEvent } from "../events/event-repository.ts";
import { runEnding } from "../runs/run-ending.ts";
import { EventRelay, RelayingEventHub } from "./event-relay.ts";
import { openRedis } from "./queue-names.ts";
import { deriveQueueKey, QueueSeal } from "./queue-seal.ts";

/** A run's events as a worker's journal stores them: started, one node, then its end with `outputs`. */
function runEvents(runId: string, outputs: Record<string, unknown>): StoredEvent[][] {
  const event = (seq: number, body: Record<string, unknown>): StoredEvent => ({
    streamId: runId,
    seq,
    type: String(body.type),
    json: JSON.stringify({ streamId: runId, seq, ts: Date.now(), ...body }),
  });
  return [
    [event(0, { type: "run.started", runId, workflowId: "w", nodeCount: 1, inputs: {} })],
    [event(1, { type: "node.started", runId, nodeId: "a", invocationId: "a#1" })],
    [event(2, { type: "run.completed", runId, outputs, durationMs: 3 })],
  ];
}

/**
 * The queue mode's relay between a worker and an API process: real Redis, real SQLite events. A wait-mode webhook
 * (or a skill call) waits only for its run's end: it gets it from the worker's announcement, without the API
 * process reading the run's events from storage (once per announcement per waiter, before).
 */
describe("event relay: waiting for a run's end", () => {
  let redis: TestRedis;
  let dir: string;
  let storage: Storage;
  const connections: Redis[] = [];
  let relay: EventRelay;
  let worker: RelayingEventHub;
  let api: RelayingEventHub;
  let reads = 0;
  const key = deriveQueueKey(randomBytes(32));

  const connect = async (name: string) => {
    const connection = await openRedis(redis.url, name, silentLogger);
    connections.push(connection);
    return connection;
  };

  /** Stores a run's events and announces them batch by batch, as a worker's journal does. */
  const work = async (from: RelayingEventHub, runId: string, outputs: Record<string, unknown>) => {
    for (const batch of runEvents(runId, outputs)) {
      await storage.events.append(batch);
      from.publish(batch);
    }
  };

  beforeAll(async () => {
    redis = await startRedis();
    dir = tempDir("weft-event-relay-");
    storage = await openSqliteStorage(dir);
    // The API's reads of storage, counted (the real table answers them).
    const events: EventRepository = {
      listAfter: (streamId, after, limit) => {
        reads++;
        return storage.events.listAfter(streamId, after, limit);
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

  it("a waiter gets the run's outputs from the worker's announcement, reading none of the run's events from storage", async () => {
    reads = 0;
    const ending = runEnding(api, storage, "run-small");
    await work(worker, "run-small", { greeting: "Hello relay" });
    expect(await ending).toEqual({ status: "completed", outputs: { greeting: "Hello relay" } });
    expect(reads).toBe(0);
  });

  it("an ending too large to announce inline is read once, by its seq", async () => {
    reads = 0;
    const big = "x".repeat(40_000);
    const ending = runEnding(api, storage, "run-big");
    await work(worker, "run-big", { big });
    expect(await ending).toEqual({ status: "completed", outputs: { big } });
    expect(reads).toBe(1);
  });

  it("an ending announced by a process without the installation's key is ignored: the waiter gets the worker's outputs", async () => {
    const forger = new RelayingEventHub("forger", await connect("forger"), new QueueSeal(deriveQueueKey(randomBytes(32)), silentLogger), silentLogger);
    const ending = runEnding(api, storage, "run-forged");
    // Published first, on the same Redis: a relay that believed it would answer the waiter with it.
    const [, , forged] = runEvents("run-forged", { greeting: "forged" });
    forger.publish(forged);
    await work(worker, "run-forged", { greeting: "Hello worker" });
    expect(await ending).toEqual({ status: "completed", outputs: { greeting: "Hello worker" } });
  });
});
