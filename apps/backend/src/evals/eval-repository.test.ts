import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EvalRun, EvalSuite } from "@weft/types";
import { MIGRATIONS } from "../schema.ts";
import { openPostgresStorage, openSqliteStorage, type Storage } from "../testing/storage.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { tempDir } from "../testing/temp-dirs.ts";
import { EvalRepository } from "./eval-repository.ts";

const suite = (id: string, workflowId: string, at: number): EvalSuite => ({
  id,
  name: `suite ${id}`,
  target: { kind: "workflow", id: workflowId },
  cases: [{ id: "c1", name: "one", inputs: { topic: "a" }, assertions: [{ kind: "equals", output: "text", expected: "Notes on a" }] }],
  createdBy: "u1",
  createdAt: at,
  updatedAt: at,
});

const evalRun = (id: string, suiteId: string, at: number, status: EvalRun["status"] = "running"): EvalRun => ({
  id,
  suiteId,
  suiteName: "s",
  status,
  cases: 1,
  done: 0,
  sides: [{ side: { version: 2 }, passed: 0, failed: 0, passRate: 0, results: [] }],
  createdAt: at,
});

/** The same contract on each engine: suites and eval runs are stored, replaced, listed and deleted alike. */
function evalContract(engine: string, open: () => Promise<Storage>) {
  describe(`EvalRepository on ${engine}`, () => {
    let repo: EvalRepository;
    beforeAll(async () => {
      repo = new EvalRepository(await open());
    });

    it("stores suites, lists them by target, replaces one keeping who made it and when, and deletes it with its runs", async () => {
      await repo.putSuite(suite("s1", "w1", 1_700_000_000_000));
      await repo.putSuite(suite("s2", "w2", 1_700_000_000_001));
      await repo.putSuite({ ...suite("s1", "w1", 5), name: "renamed", createdBy: "someone else", updatedAt: 1_800_000_000_000 });
      const s1 = await repo.getSuite("s1");
      expect(s1).toMatchObject({ name: "renamed", createdBy: "u1", createdAt: 1_700_000_000_000, updatedAt: 1_800_000_000_000 });
      expect((await repo.listSuites({ kind: "workflow", id: "w2" })).map((s) => s.id)).toEqual(["s2"]);
      expect((await repo.listSuites()).map((s) => s.id)).toEqual(["s1", "s2"]);

      await repo.putRun(evalRun("r1", "s1", 10));
      await repo.putRun(evalRun("r2", "s1", 20));
      await repo.putRun({ ...evalRun("r1", "s1", 10), done: 1 });
      expect((await repo.listRuns("s1", 10)).map((r) => [r.id, r.done])).toEqual([
        ["r2", 0],
        ["r1", 1],
      ]);
      expect(await repo.failUnfinished("stopped")).toBe(2);
      expect(await repo.getRun("r2")).toMatchObject({ status: "failed", error: "stopped" });

      expect(await repo.deleteSuite("s1")).toBe(true);
      expect(await repo.deleteSuite("s1")).toBe(false);
      expect(await repo.getRun("r1")).toBeUndefined();
      expect(await repo.getSuite("s2")).toBeDefined();
    });
  });
}

evalContract("SQLite", () => openSqliteStorage(tempDir(), undefined, MIGRATIONS));

let cluster: TestPostgres | undefined;
afterAll(async () => cluster?.stop());
evalContract("PostgreSQL", async () => {
  cluster = await startPostgres();
  return openPostgresStorage(await createTestDatabase(cluster.url), undefined, MIGRATIONS);
});
