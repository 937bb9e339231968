import { afterEach, describe, expect, it } from "vitest";
import { SecretRedactor, silentLogger } from "@weft/types";
import { EventHub } from "../../events/event-hub.ts";
import { EventJournal } from "../../events/event-journal.ts";
import { PayloadStore } from "../../events/payload-store.ts";
import { history, step, system } from "../../events/testing/journal-steps.ts";
import { MIGRATIONS } from "../../schema.ts";
import { openSqliteStorage, requireSqlite, type Storage } from "../../testing/storage.ts";
import { tempDir } from "../../testing/test-server.ts";
import { sweepSqlite } from "./payload-sweep.ts";

const opened: Storage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

describe("the retention sweep", () => {
  it("keeps every run of a stored history: after a sweep, the events read back whole", async () => {
    const storage = await openSqliteStorage(tempDir(), new SecretRedactor(), MIGRATIONS);
    opened.push(storage);
    const payloads = new PayloadStore(storage);
    const journal = new EventJournal(storage, new EventHub(), { maxBatch: 512, flushMs: 5 }, silentLogger, payloads);
    step(journal, "r1", history(60));
    await journal.flush();
    const db = requireSqlite(storage.sql, "test").db;
    expect((db.query("SELECT count(*) AS n FROM payloads WHERE data LIKE '%$weftItems%'").get() as { n: number }).n).toBeGreaterThan(0);
    db.query("INSERT INTO payloads (id, data) VALUES ('unreferenced-payload-0', '1')").run();
    expect(sweepSqlite(db)).toBe(1);
    const events = await storage.events.listAfter("r1", -1, 10);
    expect(JSON.parse(events[1]!.json)).toMatchObject({ type: "node.started", inputs: { system, messages: history(60) } });
  });
});
