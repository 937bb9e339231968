import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { openPostgresStorage, openSqliteStorage, type Storage } from "../testing/storage.ts";
import { removeDir, tempDir } from "../testing/temp-dirs.ts";
import { Table } from "./table.ts";

interface Tables {
  meta: { key: string; value: string };
  settings: { key: string; data: string; updated_at: number | string };
}

/** The kit's chunked insert on two core tables, as a repository calls it. */
class Probe extends Table<Tables> {
  putMeta(rows: Array<Tables["meta"]>, keep?: "all"): Promise<number> {
    return this.upsertRows("meta", ["key"], rows, keep);
  }

  /** No key: insert-or-ignore on whatever unique constraint a row breaks. */
  addMeta(rows: Array<Tables["meta"]>): Promise<number> {
    return this.upsertRows("meta", [], rows, "all");
  }

  putSettings(rows: Array<{ key: string; data: string; updated_at: number }>): Promise<number> {
    return this.upsertRows("settings", ["key"], rows, ["updated_at"]);
  }

  /** The rows the test wrote: on SQLite the WAL checkpointer notes its checkpoints in `meta` too, whenever one comes. */
  async meta(): Promise<Array<Tables["meta"]>> {
    return await this.db.selectFrom("meta").selectAll().where("key", "<>", "wal_checkpointed_at").orderBy("key").execute();
  }
}

let cluster: TestPostgres | undefined;
const dirs: string[] = [];
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
  for (const dir of dirs) removeDir(dir);
});

const open: Record<"sqlite" | "postgres", () => Promise<Storage>> = {
  sqlite: () => openSqliteStorage(dirs[dirs.push(tempDir("weft-table-")) - 1]),
  postgres: async () => openPostgresStorage(await createTestDatabase(cluster!.url)),
};

// 3,000 two-column rows are 7 statements (2,048 rows at most each, in power-of-two chunks: 2048 + 512 + 256 + 128 + 32 + 16 + 8).
const rows = (value: string) => Array.from({ length: 3000 }, (_, i) => ({ key: `k${String(i).padStart(4, "0")}`, value }));

describe.each(["sqlite", "postgres"] as const)("Table.upsertRows (%s)", (engine) => {
  it('with keep "all" inserts the new rows and leaves the stored ones as they are, in several statements', async () => {
    const storage = await open[engine]();
    try {
      const probe = new Probe(storage);
      await probe.putMeta([{ key: "k2999", value: "stored" }]);
      // It answers the rows it wrote: not the one left as it was; with no `keep`, every row, inserted or replaced.
      expect(await probe.putMeta(rows("new"), "all")).toBe(2999);
      const stored = await probe.meta();
      expect(stored).toHaveLength(3000);
      expect(stored.filter((r) => r.value === "stored")).toEqual([{ key: "k2999", value: "stored" }]);
      expect(await probe.putMeta(rows("newer"))).toBe(3000);
      expect(new Set((await probe.meta()).map((r) => r.value))).toEqual(new Set(["newer"]));
    } finally {
      await storage.close();
    }
  });

  it('with no key and keep "all" leaves out a row a unique constraint refuses, and answers the rows it inserted', async () => {
    const storage = await open[engine]();
    try {
      const probe = new Probe(storage);
      await probe.putMeta([{ key: "a", value: "stored" }]);
      expect(await probe.addMeta([{ key: "a", value: "again" }])).toBe(0);
      expect(await probe.addMeta([{ key: "b", value: "new" }])).toBe(1);
      expect(await probe.meta()).toEqual([
        { key: "a", value: "stored" },
        { key: "b", value: "new" },
      ]);
    } finally {
      await storage.close();
    }
  });

  it("stores all or none: a row refused in the last statement leaves none of the earlier statements' rows", async () => {
    const storage = await open[engine]();
    try {
      const probe = new Probe(storage);
      const refused = [...rows("x"), { key: "null value", value: null as unknown as string }];
      await expect(probe.putMeta(refused)).rejects.toThrow();
      expect(await probe.meta()).toEqual([]);
    } finally {
      await storage.close();
    }
  });

  it("replaces the other columns of a stored row but those it keeps", async () => {
    const storage = await open[engine]();
    try {
      const probe = new Probe(storage);
      await probe.putSettings([{ key: "a", data: '"first"', updated_at: 1 }]);
      await probe.putSettings([{ key: "a", data: '"second"', updated_at: 2 }]);
      expect(await storage.settings.get("a")).toEqual({ value: "second", updatedAt: 1 });
    } finally {
      await storage.close();
    }
  });
});
