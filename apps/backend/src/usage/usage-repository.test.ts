import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../schema.ts";
import { openPostgresStorage, openSqliteStorage, type Storage } from "../testing/storage.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { tempDir } from "../testing/temp-dirs.ts";
import { UsageRepository, utcDay } from "./usage-repository.ts";
import type { UsageRecord } from "./usage-schemas.ts";

const DAY1 = Date.UTC(2026, 10, 27, 23, 59, 0);
const DAY2 = Date.UTC(2026, 10, 28, 0, 1, 0);

const call = (over: Partial<UsageRecord>): UsageRecord => ({
  at: DAY1,
  runId: "r1",
  workflowId: "w1",
  userId: "alice",
  profileId: "p1",
  model: "m1",
  usage: { promptTokens: 100, completionTokens: 20, totalTokens: 120 },
  costUsd: 0.001,
  ...over,
});

/** The same contract on each engine: what is stored is summed exactly, grouped and filtered alike. */
function usageContract(engine: string, open: () => Promise<Storage>) {
  describe(`UsageRepository on ${engine}`, () => {
    let storage: Storage;
    let usage: UsageRepository;
    beforeAll(async () => {
      storage = await open();
      usage = new UsageRepository(storage);
      await usage.record(call({}));
      await usage.record(call({ at: DAY2, usage: { promptTokens: 1200, completionTokens: 340, totalTokens: 1540, cachedTokens: 1000, reasoningTokens: 300 }, costUsd: 0.00362 }));
      await usage.record(
        call({
          at: DAY2,
          runId: "r2",
          userId: "bob",
          profileId: "p2",
          conversationId: "c1",
          agentId: "a1",
          usage: { promptTokens: 7, completionTokens: 3, totalTokens: 10, estimated: true },
          costUsd: undefined,
        }),
      );
    });
    afterAll(() => storage.close());

    it("sums everything into one total, cost only of the priced calls, and counts the unpriced and estimated ones", async () => {
      const [total] = await usage.report({});
      expect(total).toEqual({
        calls: 3,
        promptTokens: 1307,
        completionTokens: 363,
        cachedTokens: 1000,
        reasoningTokens: 300,
        totalTokens: 1670,
        costUsd: expect.closeTo(0.00462, 12),
        unpricedCalls: 1,
        estimatedCalls: 1,
      });
    });

    it("groups by UTC day, user and profile, and filters by time, run, conversation and user", async () => {
      const byDay = await usage.report({ groupBy: ["day"] });
      expect(byDay.map((r) => [r.day, r.calls, r.totalTokens])).toEqual([
        [utcDay(DAY2), 2, 1550],
        [utcDay(DAY1), 1, 120],
      ]);
      const byUserProfile = await usage.report({ groupBy: ["user", "profile"] });
      expect(byUserProfile.map((r) => [r.user, r.profile, r.calls])).toEqual([
        ["alice", "p1", 2],
        ["bob", "p2", 1],
      ]);
      expect((await usage.report({ from: DAY2 }))[0]).toMatchObject({ calls: 2 });
      expect((await usage.report({ to: DAY2 }))[0]).toMatchObject({ calls: 1, totalTokens: 120 });
      expect((await usage.report({ runId: "r1" }))[0]).toMatchObject({ calls: 2, totalTokens: 1660 });
      expect(await usage.report({ conversationId: "c1", groupBy: ["agent"] })).toEqual([expect.objectContaining({ agent: "a1", calls: 1, costUsd: null, estimatedCalls: 1 })]);
      expect((await usage.report({ userId: "nobody" }))[0]).toMatchObject({ calls: 0, totalTokens: 0, costUsd: null });
      expect(await usage.report({ userId: "nobody", groupBy: ["day"] })).toEqual([]);
    });
  });
}

usageContract("SQLite", () => openSqliteStorage(tempDir(), undefined, MIGRATIONS));

let cluster: TestPostgres | undefined;
afterAll(async () => cluster?.stop());
usageContract("PostgreSQL", async () => {
  cluster = await startPostgres();
  return openPostgresStorage(await createTestDatabase(cluster.url), undefined, MIGRATIONS);
});

describe("UsageRepository on PostgreSQL, many calls answered at once", () => {
  it("stores every call, those made while a write is under way together in the next insert: one transaction for them, not one each", async () => {
    const storage = await openPostgresStorage(await createTestDatabase(cluster!.url), undefined, MIGRATIONS);
    try {
      const usage = new UsageRepository(storage);
      // Twenty runs' calls answered in one moment (a worker's concurrent cases): the first is written at once, the 19 others wait for it.
      await Promise.all(Array.from({ length: 20 }, (_, i) => usage.record(call({ runId: `run-${i}` }))));
      expect((await usage.report({}))[0]).toMatchObject({ calls: 20, totalTokens: 2400 });
      // A row's xmin is the transaction that inserted it.
      if (storage.sql.engine !== "postgres") throw new Error("a PostgreSQL storage was opened");
      const [row] = (await storage.sql.sql.unsafe("SELECT count(DISTINCT xmin::text)::int AS n FROM llm_usage")) as Array<{ n: number }>;
      expect(row?.n).toBe(2);
    } finally {
      await storage.close();
    }
  });
});
