import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStorage, openStorage, type Storage } from "../testing/storage.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { tempDir } from "../testing/test-server.ts";
import { TriggerTable } from "./trigger-repository.ts";
import { MIGRATIONS } from "../schema.ts";

/** The triggers' repository on both engines: activations, secrets and fires, and a signature accepted once by two storages on one database. */
describe.each(["sqlite", "postgres"] as const)("the trigger table on %s", (engine) => {
  let pg: TestPostgres | undefined;
  let url = "";
  const dataDir = tempDir();
  const open = async (): Promise<Storage> => (engine === "sqlite" ? openSqliteStorage(dataDir) : openStorage({ dataDir, databaseUrl: url, migrations: MIGRATIONS }));

  beforeAll(async () => {
    if (engine === "postgres") {
      pg = await startPostgres();
      url = await createTestDatabase(pg.url);
    }
  });
  afterAll(async () => {
    await pg?.stop();
  });

  it("keeps activations, a node's sealed secret and its last fire, and switches off", async () => {
    const storage = await open();
    try {
      const table = new TriggerTable(storage);
      expect(await table.activeState("wf", "hook")).toBeUndefined();
      await table.activate({ workflowId: "wf", activatedBy: "u1", activatedAt: 1_700_000_000_000 });
      await table.activate({ workflowId: "wf", activatedBy: "u2", activatedAt: 1_700_000_000_001 });
      expect(await table.activeState("wf", "hook")).toEqual({ activation: { workflowId: "wf", activatedBy: "u2", activatedAt: 1_700_000_000_001 }, state: undefined });
      expect(await table.activations()).toHaveLength(1);
      await table.putSecret("wf", "hook", "webhook", "sealed-1", 5);
      await table.recordFire("wf", "hook", 1_700_000_000_500, "run-1");
      await table.putSecret("wf", "hook", "webhook", "sealed-2", 6);
      expect(await table.state("wf", "hook")).toEqual({
        workflowId: "wf",
        nodeId: "hook",
        kind: "webhook",
        sealedSecret: "sealed-2",
        createdAt: 6,
        lastFiredAt: 1_700_000_000_500,
        lastRunId: "run-1",
      });
      // The hook request's one read: the activation with the node's state.
      expect(await table.activeState("wf", "hook")).toEqual({ activation: { workflowId: "wf", activatedBy: "u2", activatedAt: 1_700_000_000_001 }, state: await table.state("wf", "hook") });
      await table.deactivate("wf");
      expect(await table.activeState("wf", "hook")).toBeUndefined();
      expect(await table.states()).toHaveLength(1);
    } finally {
      await storage.close();
    }
  });

  it("records fires that arrive together: each trigger's latest, every caller answered once it is stored", async () => {
    const storage = await open();
    try {
      const table = new TriggerTable(storage);
      await table.putSecret("wf2", "a", "webhook", "sealed", 1);
      await table.putSecret("wf2", "b", "webhook", "sealed", 1);
      const fires = Array.from({ length: 20 }, (_, i) => table.recordFire("wf2", i % 2 === 0 ? "a" : "b", 1000 + i, `run-${i}`));
      await Promise.all(fires);
      expect(await table.state("wf2", "a")).toMatchObject({ lastFiredAt: 1018, lastRunId: "run-18" });
      expect(await table.state("wf2", "b")).toMatchObject({ lastFiredAt: 1019, lastRunId: "run-19" });
    } finally {
      await storage.close();
    }
  });

  it("accepts a signature once, whichever storage sees it first, and prunes those past their window", async () => {
    const [a, b] = [await open(), await open()];
    try {
      const [ta, tb] = [new TriggerTable(a), new TriggerTable(b)];
      const sig = [{ digest: "sig-1", expiresAt: 1000 }];
      const results = await Promise.all([ta.acceptReplays(sig), tb.acceptReplays(sig)]);
      expect(results.filter((stored) => stored.has("sig-1"))).toHaveLength(1);
      expect((await tb.acceptReplays(sig)).size).toBe(0);
      await ta.pruneReplays(2000);
      expect(await tb.acceptReplays([{ digest: "sig-1", expiresAt: 3000 }])).toEqual(new Set(["sig-1"]));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("signatures stored together (several statements) are each accepted once, those the other storage stored refused", async () => {
    const [a, b] = [await open(), await open()];
    try {
      const [ta, tb] = [new TriggerTable(a), new TriggerTable(b)];
      const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => ({ digest: `batch-${from + i}`, expiresAt: 5000 }));
      // 400 each, 200 of them in both: more than one insert statement per call.
      const [byA, byB] = await Promise.all([ta.acceptReplays(rows(0, 400)), tb.acceptReplays(rows(200, 600))]);
      expect(byA.size + byB.size).toBe(600);
      expect([...byA].filter((d) => byB.has(d))).toEqual([]);
      expect((await ta.acceptReplays(rows(7, 8))).size).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("a schedule's tick is claimed by one of two storages reading the same next fire time, and not while its workflow is off", async () => {
    const [a, b] = [await open(), await open()];
    try {
      const [ta, tb] = [new TriggerTable(a), new TriggerTable(b)];
      await ta.activate({ workflowId: "cron", activatedBy: "u1", activatedAt: 1 });
      await ta.armSchedule("cron", "clock", "key-1", 10_000, 1);
      const [due] = await tb.dueSchedules(10_000);
      expect(due).toEqual({ workflowId: "cron", nodeId: "clock", nextFireAt: 10_000, scheduleKey: "key-1", activatedBy: "u1", activatedAt: 1 });
      expect(await ta.dueSchedules(9_999)).toEqual([]);
      const claims = await Promise.all([ta.claimTick("cron", "clock", 10_000, 12_000, "key-1"), tb.claimTick("cron", "clock", 10_000, 12_000, "key-1")]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await ta.state("cron", "clock")).toMatchObject({ kind: "schedule", nextFireAt: 12_000, scheduleKey: "key-1" });
      // Off: nothing is due and nothing can be claimed; the fire history stays.
      await ta.recordFire("cron", "clock", 10_001, "run-1");
      await ta.deactivate("cron");
      expect(await tb.dueSchedules(20_000)).toEqual([]);
      expect(await tb.claimTick("cron", "clock", 12_000, 14_000, "key-1")).toBe(false);
      // On again: armed from then on, its history kept.
      await ta.activate({ workflowId: "cron", activatedBy: "u1", activatedAt: 2 });
      await ta.armSchedule("cron", "clock", "key-2", 30_000, 2);
      expect(await tb.state("cron", "clock")).toMatchObject({ nextFireAt: 30_000, scheduleKey: "key-2", lastRunId: "run-1" });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("a claim and its ticks' rows are one transaction: one of two storages claims, a failing run record stores nothing, and an undispatched tick is retaken once", async () => {
    const [a, b] = [await open(), await open()];
    try {
      const [ta, tb] = [new TriggerTable(a), new TriggerTable(b)];
      await ta.activate({ workflowId: "tx", activatedBy: "u1", activatedAt: 1 });
      await ta.armSchedule("tx", "clock", "key", 10_000, 1);
      const recorded: string[] = [];
      const claim = (table: TriggerTable, runId: string) =>
        table.claimTicks({ workflowId: "tx", nodeId: "clock", expected: 10_000, next: 12_000, scheduleKey: "key" }, [{ tick: 10_000, runId }], 100, async () => void recorded.push(runId));
      const claims = await Promise.all([claim(ta, "run-a"), claim(tb, "run-b")]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(recorded).toHaveLength(1);
      const [tick] = await tb.undispatchedTicks(200, 10);
      expect(tick).toEqual({ workflowId: "tx", nodeId: "clock", tick: 10_000, runId: recorded[0], claimedAt: 100 });
      // The runs' records fail: the claim is rolled back with them, so the tick is still there to claim.
      const failing = ta.claimTicks({ workflowId: "tx", nodeId: "clock", expected: 12_000, next: 14_000, scheduleKey: "key" }, [{ tick: 12_000, runId: "run-x" }], 100, async () => {
        throw new Error("the run could not be recorded");
      });
      await expect(failing).rejects.toThrow("the run could not be recorded");
      expect(await tb.state("tx", "clock")).toMatchObject({ nextFireAt: 12_000 });
      expect(await tb.undispatchedTicks(200, 10)).toHaveLength(1);
      // A tick claimed before cannot get a second row (and so a second run), whatever the next fire time says.
      await ta.armSchedule("tx", "clock", "key", 10_000, 1);
      await expect(claim(ta, "run-again")).rejects.toThrow();
      expect(await tb.state("tx", "clock")).toMatchObject({ nextFireAt: 10_000 });
      // Two processes retake an undispatched tick: one wins; once marked it is not offered again.
      const retakes = await Promise.all([ta.retakeTick(tick, 300), tb.retakeTick(tick, 300)]);
      expect(retakes.filter(Boolean)).toHaveLength(1);
      await tb.markDispatched("tx", "clock", 10_000, 301);
      expect(await ta.undispatchedTicks(1_000, 10)).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
