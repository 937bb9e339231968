import { describe, expect, it } from "vitest";
import { storageOpener, type StorageHarness } from "../storage/contract/harness.ts";
import { storageEngines } from "../testing/engine-harnesses.ts";
import { PayloadStore } from "./payload-store.ts";
import { payloadId } from "./payload-refs.ts";

function payloadStoreContract(harness: StorageHarness): void {
  describe(`payload store (${harness.engine})`, () => {
    const { fresh } = storageOpener(harness);

    it("stores each text once by its content id, inside the caller's transaction, and loads any number by id", async () => {
      const storage = await fresh();
      const store = new PayloadStore(storage.sql);
      const texts = Array.from({ length: 1200 }, (_, i) => JSON.stringify(`text ${i}`));
      const ids = texts.map((t) => store.put(t));
      expect(store.put(texts[0]!)).toBe(ids[0]);
      // Ids are the content's, remembered (short texts) or computed again (long ones).
      const long = JSON.stringify("z".repeat(5000));
      expect([store.put(texts[3]!), store.put(long), store.put(long)]).toEqual([payloadId(texts[3]!), payloadId(long), payloadId(long)]);
      await store.flush();
      // A second process writing the same texts changes nothing.
      const again = new PayloadStore(storage.sql);
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
  });
}

for (const harness of storageEngines()) payloadStoreContract(harness);
