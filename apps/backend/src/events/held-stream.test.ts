import { afterEach, describe, expect, it } from "vitest";
import { silentLogger, type RunEventDraft } from "@weft/types";
import { openSqliteStorage, requireSqlite, type Storage } from "../testing/storage.ts";
import { tempDir } from "../testing/test-server.ts";
import { until } from "../testing/until.ts";
import { EventHub } from "./event-hub.ts";
import { EventJournal } from "./event-journal.ts";
import { MIGRATIONS } from "../schema.ts";

const opened: Storage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

/** A fresh SQLite storage (closed after the test) and a journal on it that flushes at once. */
async function openJournal(hub = new EventHub()): Promise<{ storage: Storage; journal: EventJournal }> {
  const storage = await openSqliteStorage(tempDir(), undefined, MIGRATIONS);
  opened.push(storage);
  return { storage, journal: new EventJournal(storage, hub, { maxBatch: 512, flushMs: 1 }, silentLogger) };
}

const status = (status: "running" | "paused"): RunEventDraft => ({ type: "scene.status", status }) as RunEventDraft;

describe("a held stream (a scene's)", () => {
  it("stores its events only with the owner's cut, in one transaction with the owner's writes, and holds them again when that fails", async () => {
    const hub = new EventHub();
    const live: number[] = [];
    hub.subscribe("s", (events) => live.push(...events.map((e) => e.seq)));
    const { storage, journal } = await openJournal(hub);
    const db = requireSqlite(storage.sql, "test").db;
    db.run("CREATE TABLE owner (n INTEGER)");
    await journal.open("s");
    const held = journal.hold("s");
    journal.append("s", status("running"));
    journal.append("s", status("paused"));
    await journal.flush();
    await Bun.sleep(20);
    expect(await storage.events.listAfter("s", -1, 10)).toEqual([]);
    expect(live).toEqual([]);

    const failing = held.cut();
    journal.append("s", status("running"));
    await expect(
      failing(async () => {
        db.run("INSERT INTO owner VALUES (1)");
        throw new Error("the owner's write failed");
      }),
    ).rejects.toThrow("the owner's write failed");
    expect(await storage.events.listAfter("s", -1, 10)).toEqual([]);
    expect(db.query("SELECT count(*) AS n FROM owner").get()).toEqual({ n: 0 });

    // The next cut takes the events the failed one had, in order, and the one appended since.
    await held.cut()(async () => {
      db.run("INSERT INTO owner VALUES (2)");
    });
    expect((await storage.events.listAfter("s", -1, 10)).map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(db.query("SELECT n FROM owner").all()).toEqual([{ n: 2 }]);
    expect(live).toEqual([0, 1, 2]);

    held.release();
    journal.append("s", status("paused"));
    await journal.flush();
    expect((await storage.events.listAfter("s", -1, 10)).map((e) => e.seq)).toEqual([0, 1, 2, 3]);
  });

  it("a cut stores the journal's waiting events too, and events after it wait spacingMs from that write, not the earlier timer", async () => {
    const storage = await openSqliteStorage(tempDir(), undefined, MIGRATIONS);
    opened.push(storage);
    // Spacing of a minute: under a CPU hog the sleep below outlasted a 1 s spacing and the write came before the check.
    const journal = new EventJournal(storage, new EventHub(), { maxBatch: 512, flushMs: 200, spacingMs: 60_000 }, silentLogger);
    await journal.open("s");
    await journal.open("r");
    const held = journal.hold("s");
    journal.append("r", { type: "node.chunk", nodeId: "n", invocationId: "i", index: 0, chunk: "a" });
    journal.append("s", status("running"));
    await held.cut()(async () => undefined);
    expect((await storage.events.listAfter("r", -1, 10)).map((e) => e.seq)).toEqual([0]);
    journal.append("r", { type: "node.chunk", nodeId: "n", invocationId: "i", index: 1, chunk: "b" });
    // Past the 200 ms timer set for the first event (a busy machine only makes this later), short of the spacing.
    await Bun.sleep(500);
    expect((await storage.events.listAfter("r", -1, 10)).map((e) => e.seq)).toEqual([0]);
    await journal.flush();
    expect((await storage.events.listAfter("r", -1, 10)).map((e) => e.seq)).toEqual([0, 1]);
  });

  it("drops what is held when discarded (a shutdown), and numbers the stream on from what is stored", async () => {
    const { storage, journal } = await openJournal();
    await journal.open("s");
    const held = journal.hold("s");
    journal.append("s", status("running"));
    await held.cut()(async () => undefined);
    journal.append("s", status("paused"));
    held.discard();
    await journal.flush();
    await journal.open("s");
    journal.append("s", status("running"));
    await journal.flush();
    expect((await storage.events.listAfter("s", -1, 10)).map((e) => [e.seq, JSON.parse(e.json).status])).toEqual([
      [0, "running"],
      [1, "running"],
    ]);
  });

  it("stores events that change no state on their own when no cut comes for a while, up to the first that does", async () => {
    const { storage, journal } = await openJournal();
    await journal.open("s");
    const held = journal.hold("s");
    journal.append("s", { type: "scene.log", nextSeq: 1 } as RunEventDraft);
    journal.append("s", { type: "world.changed", path: "x", value: 1 } as RunEventDraft);
    journal.append("s", { type: "scene.log", nextSeq: 2 } as RunEventDraft);
    // Stored once the journal's wait for a cut (250 ms) has passed: awaited, not slept for (under a CPU hog 400 ms was too short).
    const alone = await until("the event that changes no state to be stored", async () => {
      const types = (await storage.events.listAfter("s", -1, 10)).map((e) => e.type);
      return types.length > 0 ? types : undefined;
    });
    expect(alone).toEqual(["scene.log"]);
    await held.cut()(async () => undefined);
    expect((await storage.events.listAfter("s", -1, 10)).map((e) => e.type)).toEqual(["scene.log", "world.changed", "scene.log"]);
  });
});
