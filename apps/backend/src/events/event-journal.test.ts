import { afterEach, describe, expect, it } from "vitest";
import { silentLogger, type RunEventDraft } from "@weft/types";
import { openSqliteStorage, type Storage } from "../testing/storage.ts";
import type { WriteBatch } from "./write-batch.ts";
import { tempDir } from "../testing/test-server.ts";
import { EventHub } from "./event-hub.ts";
import { EventJournal } from "./event-journal.ts";
import type { StoredEvent } from "./event-repository.ts";
import { MIGRATIONS } from "../schema.ts";

const opened: Storage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

/** The real SQLite storage, with its batch writes counted (and optionally refused a few times). */
async function countingStorage(failFirst = 0): Promise<{ storage: Storage; batches: WriteBatch[] }> {
  const storage = await openSqliteStorage(tempDir(), undefined, MIGRATIONS);
  opened.push(storage);
  const batches: WriteBatch[] = [];
  let failures = failFirst;
  const write = storage.writeBatch.bind(storage);
  storage.writeBatch = async (batch) => {
    if (failures-- > 0) throw new Error("disk I/O error");
    batches.push(batch);
    return write(batch);
  };
  return { storage, batches };
}

const chunk = (i: number): RunEventDraft => ({ type: "node.chunk", nodeId: "n", invocationId: "i", index: i, chunk: `c${i}` });

describe("EventJournal", () => {
  it("stores 10,000 events in a few batched transactions, numbered without gaps", async () => {
    const { storage, batches } = await countingStorage();
    const journal = new EventJournal(storage, new EventHub(), { maxBatch: 512, flushMs: 5 }, silentLogger);
    await journal.open("run-1");
    for (let i = 0; i < 10_000; i++) journal.append("run-1", chunk(i));
    await journal.flush();
    expect(batches.length).toBeLessThanOrEqual(Math.ceil(10_000 / 512) + 1);
    const stored = await storage.events.listAfter("run-1", -1, 20_000);
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i));
    expect(stored).toHaveLength(10_000);
    expect(JSON.parse(stored[9_999].json)).toMatchObject({ streamId: "run-1", seq: 9_999, type: "node.chunk", chunk: "c9999" });
  });

  it("publishes an event only once it is stored", async () => {
    const { storage } = await countingStorage();
    const hub = new EventHub();
    const journal = new EventJournal(storage, hub, { maxBatch: 64, flushMs: 2 }, silentLogger);
    const checks: boolean[] = [];
    hub.subscribe("run-2", (events) => {
      const last = events[events.length - 1];
      void storage.events.listAfter("run-2", last.seq - 1, 1).then((found) => checks.push(found[0]?.seq === last.seq));
    });
    await journal.open("run-2");
    for (let i = 0; i < 1000; i++) {
      journal.append("run-2", chunk(i));
      if (i % 100 === 0) await Bun.sleep(1);
    }
    await journal.flush();
    await Bun.sleep(10);
    expect(checks.length).toBeGreaterThan(1);
    expect(checks.every(Boolean)).toBe(true);
  });

  it("writes at most once per spacingMs while busy, and flushMs after an event when it was idle", async () => {
    const { storage, batches } = await countingStorage();
    const journal = new EventJournal(storage, new EventHub(), { maxBatch: 512, flushMs: 1, spacingMs: 1_000 }, silentLogger);
    await journal.open("run-s");
    journal.append("run-s", chunk(0));
    // Idle: written by the timer (no flush asked), long before spacingMs would allow.
    while (batches.length === 0) await Bun.sleep(5);
    journal.append("run-s", chunk(1));
    await Bun.sleep(300);
    expect(batches).toHaveLength(1);
    while (batches.length === 1) await Bun.sleep(5);
    expect(batches[1]!.events.map((e) => e.seq)).toEqual([1]);
  });

  it("writes a run's end that someone waits for flushMs after it, not held for spacingMs (a webhook's answer waits for it)", async () => {
    const { storage, batches } = await countingStorage();
    const hub = new EventHub();
    const journal = new EventJournal(storage, hub, { maxBatch: 512, flushMs: 1, spacingMs: 600_000 }, silentLogger);
    await journal.open("run-w");
    journal.append("run-w", chunk(0));
    while (batches.length === 0) await Bun.sleep(5);
    // Within the spacing now: this chunk alone would wait ten minutes; the awaited end takes it along.
    journal.append("run-w", chunk(1));
    const ended = new Promise<StoredEvent>((resolve) => hub.subscribeEnding("run-w", resolve));
    journal.append("run-w", { type: "run.completed", runId: "run-w", outputs: {}, durationMs: 1 });
    expect((await ended).seq).toBe(2);
    expect(batches[1]!.events.map((e) => e.seq)).toEqual([1, 2]);
    expect((await storage.events.listAfter("run-w", -1, 10)).map((e) => e.seq)).toEqual([0, 1, 2]);
  });

  it("continues a stream's numbering after it was closed (a conversation that goes on later)", async () => {
    const { storage } = await countingStorage();
    const journal = new EventJournal(storage, new EventHub(), { maxBatch: 512, flushMs: 5 }, silentLogger);
    await journal.open("conv");
    journal.append("conv", chunk(0));
    journal.append("conv", chunk(1));
    await journal.flush();
    journal.close("conv");
    const fresh = new EventJournal(storage, new EventHub(), { maxBatch: 512, flushMs: 5 }, silentLogger);
    await fresh.open("conv");
    expect(fresh.append("conv", chunk(2)).seq).toBe(2);
    await fresh.flush();
    expect((await storage.events.listAfter("conv", -1, 10)).map((e) => e.seq)).toEqual([0, 1, 2]);
  });

  it("keeps events whose write failed and stores them, in order, on the next flush", async () => {
    const { storage } = await countingStorage(2);
    const published: number[] = [];
    const hub = new EventHub();
    hub.subscribe("run-3", (events) => published.push(...events.map((e) => e.seq)));
    const journal = new EventJournal(storage, hub, { maxBatch: 512, flushMs: 5 }, silentLogger);
    await journal.open("run-3");
    journal.append("run-3", chunk(0));
    await expect(journal.flush()).rejects.toThrow("disk I/O error");
    journal.append("run-3", chunk(1));
    await expect(journal.flush()).rejects.toThrow("disk I/O error");
    expect(published).toEqual([]);
    journal.append("run-3", chunk(2));
    await journal.flush();
    expect((await storage.events.listAfter("run-3", -1, 10)).map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(published).toEqual([0, 1, 2]);
  });
});
