import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SceneSuite, SceneSuiteRun } from "@weft/types";
import { MIGRATIONS } from "../schema.ts";
import { openPostgresStorage, openSqliteStorage, type Storage } from "../testing/storage.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { tempDir } from "../testing/temp-dirs.ts";
import { SceneSuiteRepository } from "./scene-suite-repository.ts";

const suite = (id: string, sceneId: string, at: number): SceneSuite => ({
  id,
  name: `suite ${id}`,
  sceneId,
  cases: [{ id: "c1", name: "one", seeds: 2, seedPath: "seed", world: { stock: 2 }, invariants: [{ kind: "state", path: "stock", op: "gte", value: 0 }] }],
  createdBy: "u1",
  createdAt: at,
  updatedAt: at,
});
const run = (id: string, suiteId: string, at: number, status: SceneSuiteRun["status"] = "running"): SceneSuiteRun => ({
  id,
  suiteId,
  suiteName: "s",
  sceneId: "shop",
  status,
  total: 2,
  done: 0,
  passed: 0,
  failed: 0,
  results: [],
  createdAt: at,
});

/** The same contract on each engine: scene suites and their runs are stored, replaced, listed and deleted alike. */
function contract(engine: string, open: () => Promise<Storage>) {
  describe(`SceneSuiteRepository on ${engine}`, () => {
    let repo: SceneSuiteRepository;
    beforeAll(async () => {
      repo = new SceneSuiteRepository(await open());
    });

    it("stores suites, lists them by scene, replaces one keeping who made it and when, and deletes it with its runs", async () => {
      await repo.putSuite(suite("s1", "shop", 1_700_000_000_000));
      await repo.putSuite(suite("s2", "farm", 1_700_000_000_001));
      await repo.putSuite({ ...suite("s1", "shop", 5), name: "renamed", createdBy: "someone else", updatedAt: 1_800_000_000_000 });
      expect((await repo.listSuites("shop")).map((s) => [s.id, s.name, s.createdBy, s.createdAt, s.updatedAt])).toEqual([["s1", "renamed", "u1", 1_700_000_000_000, 1_800_000_000_000]]);
      expect((await repo.listSuites()).map((s) => s.id)).toEqual(["s1", "s2"]);
      expect((await repo.getSuite("s1"))?.cases).toEqual(suite("s1", "shop", 0).cases);

      await repo.putRun(run("r1", "s1", 1_700_000_000_010));
      await repo.putRun(run("r2", "s1", 1_700_000_000_020, "completed"));
      expect((await repo.listRuns("s1", 10)).map((r) => r.id)).toEqual(["r2", "r1"]);
      expect(await repo.failUnfinished("stopped")).toBe(1);
      expect(await repo.getRun("r1")).toMatchObject({ status: "failed", error: "stopped" });

      expect(await repo.deleteSuite("s1")).toBe(true);
      expect(await repo.deleteSuite("s1")).toBe(false);
      expect(await repo.getRun("r2")).toBeUndefined();
      expect(await repo.getSuite("s2")).toBeDefined();
    });
  });
}

contract("SQLite", () => openSqliteStorage(tempDir(), undefined, MIGRATIONS));

let cluster: TestPostgres | undefined;
afterAll(async () => cluster?.stop());
contract("PostgreSQL", async () => {
  cluster = await startPostgres();
  return openPostgresStorage(await createTestDatabase(cluster.url), undefined, MIGRATIONS);
});
