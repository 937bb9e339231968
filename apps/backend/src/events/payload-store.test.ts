import { describe, expect, it } from "vitest";
import { silentLogger, type RunEvent } from "@weft/types";
import { storageOpener, type StorageHarness } from "../testing/storage-contract/harness.ts";
import { storageEngines } from "../testing/engine-harnesses.ts";
import { PayloadStore } from "./payload-store.ts";
import { ITEMS_KEY, payloadId, TEXT_PIECES_KEY } from "./payload-refs.ts";
import { EventHub } from "./event-hub.ts";
import { EventJournal } from "./event-journal.ts";
import { createQueryDb } from "../storage/query-db.ts";

function payloadStoreContract(harness: StorageHarness): void {
  describe(`payload store (${harness.engine})`, () => {
    const { fresh } = storageOpener(harness);

    it("stores each text once, inside the caller's transaction, and loads any number by id", async () => {
      const storage = await fresh();
      const store = new PayloadStore(storage);
      const texts = Array.from({ length: 1200 }, (_, i) => JSON.stringify(`text ${i}`));
      const ids = texts.map((t) => store.put(t));
      expect(store.put(texts[0]!)).toBe(ids[0]);
      // The same id for the same text, remembered by text (short ones) or by content id (long ones); an id ends with
      // the start of the content id and fits what the retention sweep looks for.
      const long = JSON.stringify("z".repeat(5000));
      const longId = store.put(long);
      expect([store.put(texts[3]!), store.put(long)]).toEqual([ids[3], longId]);
      for (const [id, text] of [
        [ids[3]!, texts[3]!],
        [longId, long],
      ] as const) {
        expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
        expect(payloadId(text).startsWith(id.slice(8))).toBe(true);
      }
      await store.flush();
      // A second process stores what it puts under its own ids: the first one's read as they were.
      const again = new PayloadStore(storage);
      texts.forEach((t) => again.put(t));
      await again.flush();
      const loaded = await store.load([...ids, "unknown-id"]);
      expect(loaded.size).toBe(1200);
      expect(loaded.get(ids[7]!)).toBe(texts[7]);
      // Rolled back with the caller's transaction: given back, the next flush writes it.
      const late = store.put(JSON.stringify("late"));
      let written: Awaited<ReturnType<PayloadStore["flush"]>> = [];
      await expect(
        storage.transaction(async () => {
          written = await store.flush();
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect((await store.load([late])).size).toBe(0);
      store.restore(written);
      expect(store.put(JSON.stringify("late"))).toBe(late);
      await store.flush();
      expect((await store.load([late])).get(late)).toBe(JSON.stringify("late"));
    });

    it("makes ids in the order texts come, so each new text goes to the end of the id index", async () => {
      const storage = await fresh();
      const store = new PayloadStore(storage);
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) {
        ids.push(store.put(JSON.stringify(`text ${i}`)));
        // A millisecond apart: ids made in the same millisecond share their front and differ by content.
        await Bun.sleep(1);
      }
      expect(ids).toEqual([...ids].sort());
      await store.flush();
      expect((await store.load(ids)).size).toBe(40);
    });

    it("gives a journal's events back as they were sent: a long history in runs, a prompt in pieces, the envelope's defaults", async () => {
      const storage = await fresh();
      const payloads = new PayloadStore(storage);
      const hub = new EventHub();
      const live: string[] = [];
      hub.subscribe("run-1", (events) => live.push(...events.map((e) => e.json)));
      const journal = new EventJournal(storage, hub, { maxBatch: 512, flushMs: 5 }, silentLogger, payloads);
      const world = JSON.stringify({ villagers: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`v${i}`, { mood: i }])) }, null, 1);
      const system = `You are v1.\n\n${"Act through the tools. ".repeat(40)}\n\nWORLD_STATE\n${world}`;
      const messages = Array.from({ length: 60 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `Message ${i}: ${"chat ".repeat(20 + (i % 7))}` }));
      const inputs = { system, messages };
      journal.openNew("run-1");
      const sent = [
        { type: "run.started", runId: "run-1", workflowId: "agent-deliberation", nodeCount: 1, inputs },
        { type: "node.started", nodeId: "llm", invocationId: "run-1:llm", nodeType: "llm:chat", inputs, attempt: 1 },
        { type: "node.completed", nodeId: "llm", invocationId: "run-1:llm", outputs: { messages: [...messages, { role: "assistant", content: "ok" }] }, durationMs: 0.25, cached: false },
        { type: "run.completed", runId: "run-1", outputs: {}, durationMs: 1 },
      ].map((event) => journal.append("run-1", event as unknown as RunEvent));
      await journal.flush();
      // The rows as stored (the repository reads them back whole).
      const db = createQueryDb<{ events: { stream_id: string; seq: number; data: string } }>(storage.sql);
      const rows = (await db.selectFrom("events").select("data").where("stream_id", "=", "run-1").orderBy("seq").execute()).map((r) => ({ json: r.data }));
      expect(JSON.stringify(rows)).not.toContain("Message 3");
      // As stored: the history's list holds runs of items, the prompt is a list of pieces, each one reference.
      const started = JSON.parse(rows[0]!.json) as { inputs: Record<string, { $weftPayload: string }> };
      const [list, pieces] = [started.inputs.messages!.$weftPayload, started.inputs.system!.$weftPayload];
      const texts = await payloads.load([list, pieces]);
      expect(texts.get(list)).toContain(ITEMS_KEY);
      expect(texts.get(pieces)).toContain(TEXT_PIECES_KEY);
      const read = (await storage.events.listAfter("run-1", -1, 10)).map((e) => JSON.parse(e.json) as unknown);
      expect(read).toEqual(sent.map((e) => JSON.parse(JSON.stringify(e)) as unknown));
      expect(read).toEqual(live.map((j) => JSON.parse(j) as unknown));
      expect(await storage.observations.listByRun("run-1")).toMatchObject([{ nodeId: "llm", status: "completed", inputs }]);
    });
  });
}

for (const harness of storageEngines()) payloadStoreContract(harness);
