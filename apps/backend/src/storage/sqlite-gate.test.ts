import { describe, expect, it } from "vitest";
import { openSqliteStorage, requireSqlite } from "../testing/storage.ts";
import { tempDir } from "../testing/test-server.ts";

describe("SQLite gate", () => {
  it("a storage call made by a call already let through passes while a transaction waits for it (no deadlock)", async () => {
    const storage = await openSqliteStorage(tempDir());
    const { gate } = requireSqlite(storage.sql, "test");
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const outer = gate(async () => {
        await held;
        // A transaction is waiting for this call to end by now; its own storage call must not wait for that transaction.
        await storage.meta.set("nested", "1");
        return "outer done";
      });
      const transaction = storage.transaction(async () => {
        await storage.meta.set("in transaction", "1");
      });
      await Bun.sleep(10);
      release();
      expect(await Promise.race([outer, Bun.sleep(2000).then(() => "deadlocked")])).toBe("outer done");
      await transaction;
      expect([await storage.meta.get("nested"), await storage.meta.get("in transaction")]).toEqual(["1", "1"]);
    } finally {
      await storage.close();
    }
  });

  it("statements on db run through gate outside a transaction wait for it, so its rollback does not take them", async () => {
    const storage = await openSqliteStorage(tempDir());
    const { db, gate } = requireSqlite(storage.sql, "test");
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const failing = storage.transaction(async () => {
        await storage.meta.set("inside", "1");
        await held;
        throw new Error("rolled back");
      });
      const outside = gate(() => db.run("INSERT INTO meta (key, value) VALUES ('outside', '1')"));
      await Bun.sleep(10);
      release();
      await expect(failing).rejects.toThrow("rolled back");
      await outside;
      expect([await storage.meta.get("inside"), await storage.meta.get("outside")]).toEqual([undefined, "1"]);
    } finally {
      await storage.close();
    }
  });
});
