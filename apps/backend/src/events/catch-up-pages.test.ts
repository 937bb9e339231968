import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStorage, type Storage } from "../testing/storage.ts";
import type { StoredEvent } from "./event-repository.ts";
import { tempDir } from "../testing/test-server.ts";
import { CatchUpPages } from "./catch-up-pages.ts";
import { MIGRATIONS } from "../schema.ts";

const opened: Storage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

const event = (seq: number): StoredEvent => ({ streamId: "s", seq, type: "node.chunk", json: `{"seq":${seq}}` });

/** The storage's events, counting the reads that reach it. */
async function countedEvents() {
  const storage = await openSqliteStorage(tempDir(), undefined, MIGRATIONS);
  opened.push(storage);
  const reads: number[] = [];
  const events = {
    listAfter: (streamId: string, after: number, limit: number) => {
      reads.push(after);
      return storage.events.listAfter(streamId, after, limit);
    },
  };
  return { storage, events, reads };
}

describe("CatchUpPages", () => {
  it("reads a full page once for every subscriber, and a short one again (it may have grown)", async () => {
    const { storage, events, reads } = await countedEvents();
    await storage.events.append([0, 1, 2].map(event));
    const pages = new CatchUpPages(events, { maxChars: 1 << 20, ttlMs: 60_000 });
    const firsts = await Promise.all([pages.read("s", -1, 2), pages.read("s", -1, 2)]);
    expect(await pages.read("s", -1, 2)).toBe(firsts[0]);
    expect(firsts[1].map((e) => JSON.parse(e.message).event.seq)).toEqual([0, 1]);
    expect(reads).toEqual([-1]);

    expect((await pages.read("s", 1, 2)).map((e) => e.seq)).toEqual([2]);
    await storage.events.append([event(3)]);
    expect((await pages.read("s", 1, 2)).map((e) => e.seq)).toEqual([2, 3]);
    expect(reads).toEqual([-1, 1, 1]);
  });

  it("reads a kept page again once its time is up", async () => {
    const { storage, events, reads } = await countedEvents();
    await storage.events.append([0, 1].map(event));
    const pages = new CatchUpPages(events, { maxChars: 1 << 20, ttlMs: 20 });
    await pages.read("s", -1, 2);
    await Bun.sleep(100);
    await pages.read("s", -1, 2);
    expect(reads).toEqual([-1, -1]);
  });

  it("keeps pages only within its size: a bigger page is read each time", async () => {
    const { storage, events, reads } = await countedEvents();
    await storage.events.append([0, 1].map(event));
    const pages = new CatchUpPages(events, { maxChars: 10, ttlMs: 60_000 });
    await pages.read("s", -1, 2);
    await pages.read("s", -1, 2);
    expect(reads).toEqual([-1, -1]);
  });
});
