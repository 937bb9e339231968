import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../events/event-repository.ts";
import { storageOpener, type StorageHarness } from "./harness.ts";

const event = (streamId: string, seq: number, type = "node.chunk"): StoredEvent => ({ streamId, seq, type, json: JSON.stringify({ type, seq, text: `e${seq} ✓` }) });

export function eventsContract(harness: StorageHarness): void {
  describe(`storage contract (${harness.engine}): events`, () => {
    const { fresh, database } = storageOpener(harness);

    it("append per stream, read back after a seq in pages, exactly as sent; lastSeq is -1 for an empty stream", async () => {
      const storage = await fresh();
      expect(await storage.events.lastSeq("s")).toBe(-1);
      await storage.events.append(Array.from({ length: 25 }, (_, i) => event("s", i)));
      await storage.events.append([event("t", 0, "run.started")]);
      expect(await storage.events.lastSeq("s")).toBe(24);
      expect(await storage.events.lastSeq("t")).toBe(0);
      const pages: StoredEvent[][] = [];
      for (let after = -1; ;) {
        const page = await storage.events.listAfter("s", after, 10);
        if (page.length === 0) break;
        pages.push(page);
        after = page[page.length - 1].seq;
      }
      expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
      expect(pages.flat()).toEqual(Array.from({ length: 25 }, (_, i) => event("s", i)));
      expect(await storage.events.listAfter("t", -1, 10)).toEqual([event("t", 0, "run.started")]);
      expect(await storage.events.listAfter("none", -1, 10)).toEqual([]);
    });

    it("refuse a seq already stored for the stream, storing none of that append", async () => {
      const storage = await fresh();
      await storage.events.append([event("s", 0), event("s", 1)]);
      await expect(storage.events.append([event("s", 2), event("s", 1)])).rejects.toThrow();
      expect((await storage.events.listAfter("s", -1, 10)).map((e) => e.seq)).toEqual([0, 1]);
    });

    it("two storages writing the same seqs of one stream at once: each seq stored once, one append refused whole", async () => {
      const db = await database();
      const [one, two] = [await db.open(), await db.open()];
      const results = await Promise.allSettled([one.events.append([event("s", 0), event("s", 1, "one")]), two.events.append([event("s", 0), event("s", 1, "two")])]);
      expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
      const stored = await two.events.listAfter("s", -1, 10);
      expect(stored.map((e) => e.seq)).toEqual([0, 1]);
      expect(stored[1].type).toBe(results[0].status === "fulfilled" ? "one" : "two");
    });

    it("two storages appending to different streams at once: every stream complete and gap-free", async () => {
      const db = await database();
      const [one, two] = [await db.open(), await db.open()];
      const streams = ["a", "b", "c", "d"];
      await Promise.all(
        streams.map(async (stream, i) => {
          const writer = i % 2 === 0 ? one : two;
          for (let batch = 0; batch < 10; batch++) await writer.events.append(Array.from({ length: 20 }, (_, j) => event(stream, batch * 20 + j)));
        }),
      );
      for (const stream of streams) {
        const stored = await one.events.listAfter(stream, -1, 1000);
        expect(stored.map((e) => e.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i));
        expect(await two.events.lastSeq(stream)).toBe(199);
      }
    });
  });
}
