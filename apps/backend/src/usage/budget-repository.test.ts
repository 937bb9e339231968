import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../schema.ts";
import { openPostgresStorage, openSqliteStorage, type Storage } from "../testing/storage.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { tempDir } from "../testing/temp-dirs.ts";
import { BudgetRepository } from "./budget-repository.ts";

/** The same contract on each engine: a budget is stored, replaced, read by key and removed alike. */
function budgetContract(engine: string, open: () => Promise<Storage>) {
  describe(`BudgetRepository on ${engine}`, () => {
    let budgets: BudgetRepository;
    beforeAll(async () => {
      budgets = new BudgetRepository(await open());
    });

    it("stores, replaces, reads by key and removes budgets, keeping each field's absence", async () => {
      await budgets.set("owner", "run", { tokens: 5000 });
      await budgets.set("workflow", "w1", { tokens: 100, costUsd: 0.25 });
      await budgets.set("workflow", "w1", { costUsd: 0.125 });
      await budgets.set("user", "alice", { tokens: 9_000_000_000 });
      expect(await budgets.list()).toEqual([
        { target: "owner", id: "run", limit: { tokens: 5000 } },
        { target: "user", id: "alice", limit: { tokens: 9_000_000_000 } },
        { target: "workflow", id: "w1", limit: { costUsd: 0.125 } },
      ]);
      const some = await budgets.getMany([
        { target: "owner", id: "run" },
        { target: "workflow", id: "w1" },
        { target: "scene", id: "nope" },
      ]);
      expect([...some.entries()].sort()).toEqual([
        ["owner/run", { tokens: 5000 }],
        ["workflow/w1", { costUsd: 0.125 }],
      ]);
      expect(await budgets.remove("workflow", "w1")).toBe(true);
      expect(await budgets.remove("workflow", "w1")).toBe(false);
      expect((await budgets.list()).map((b) => `${b.target}/${b.id}`)).toEqual(["owner/run", "user/alice"]);
    });
  });
}

budgetContract("SQLite", () => openSqliteStorage(tempDir(), undefined, MIGRATIONS));

let cluster: TestPostgres | undefined;
afterAll(async () => cluster?.stop());
budgetContract("PostgreSQL", async () => {
  cluster = await startPostgres();
  return openPostgresStorage(await createTestDatabase(cluster.url), undefined, MIGRATIONS);
});
