import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, startPostgres, type TestPostgres } from "../../testing/postgres-server.ts";
import { MIGRATIONS } from "../../schema.ts";
import { openStorage, type Storage } from "../../testing/storage.ts";
import { observation, run } from "../../testing/storage-contract/runs.contract.ts";
import { tempDir, removeDir } from "../../testing/test-server.ts";
import { compact } from "./compact.ts";

const DAY = 24 * 60 * 60 * 1000;
let cluster: TestPostgres;
let storage: Storage;
let dataDir: string;
const now = Date.now();

/** A finished run of `workflowId` created `ageDays` ago, with 2 observations and 3 events. */
async function storedRun(id: string, workflowId: string, ageDays: number, status: "completed" | "running" = "completed"): Promise<void> {
  await storage.runs.create(run(id, now - ageDays * DAY, { workflowId, status }), undefined);
  await storage.writeBatch({
    newRuns: [],
    events: [0, 1, 2].map((seq) => ({ streamId: id, seq, type: "node.completed", json: JSON.stringify({ type: "node.completed", streamId: id, seq, ts: now }) })),
    observations: [
      { ord: 0, observation: observation(id, "a") },
      { ord: 1, observation: observation(id, "b") },
    ],
    finalObservations: [],
    runUpdates: [],
  });
}

async function present(id: string): Promise<{ run: boolean; observations: number; lastSeq: number }> {
  return { run: (await storage.runs.get(id)) !== undefined, observations: (await storage.observations.listByRun(id)).length, lastSeq: await storage.events.lastSeq(id) };
}

beforeAll(async () => {
  cluster = await startPostgres();
  dataDir = tempDir("weft-compact-pg-");
  storage = await openStorage({ dataDir, databaseUrl: await createTestDatabase(cluster.url), migrations: MIGRATIONS });
  await storedRun("old-1", "notes", 40);
  await storedRun("old-2", "notes", 35);
  await storedRun("old-running", "notes", 50, "running");
  await storedRun("new-1", "notes", 1);
  await storedRun("other-old", "other", 45);
  await storedRun("other-new", "other", 2);
});
afterAll(async () => {
  await storage?.close();
  await cluster?.stop();
  removeDir(dataDir);
});

describe("weft compact on PostgreSQL", () => {
  it("counts on a dry run and removes nothing", async () => {
    const report = await compact(storage.sql, { runsMaxAgeDays: 30 }, { now, dryRun: true });
    expect(report).toMatchObject({ engine: "postgres", dryRun: true, runs: 3, observations: 6, runEvents: 9 });
    expect(await present("old-1")).toEqual({ run: true, observations: 2, lastSeq: 2 });
  });

  it("removes finished runs past the age limit with their observations and events; running and newer runs stay", async () => {
    const report = await compact(storage.sql, { runsMaxAgeDays: 30, sceneLogMaxAgeDays: 30 }, { now });
    expect(report).toMatchObject({ engine: "postgres", dryRun: false, runs: 3, observations: 6, runEvents: 9 });
    for (const id of ["old-1", "old-2", "other-old"]) expect(await present(id)).toEqual({ run: false, observations: 0, lastSeq: -1 });
    for (const id of ["old-running", "new-1", "other-new"]) expect(await present(id)).toEqual({ run: true, observations: 2, lastSeq: 2 });
  });

  it("keeps the newest N runs of each workflow, counting the unfinished ones", async () => {
    // notes: new-1 (newest), old-running; other: other-new.
    const report = await compact(storage.sql, { runsPerWorkflow: 1 }, { now });
    expect(report.runs).toBe(0);
    expect((await present("old-running")).run).toBe(true);
    await storedRun("newest", "notes", 0);
    expect((await compact(storage.sql, { runsPerWorkflow: 1 }, { now })).runs).toBe(1);
    expect((await present("new-1")).run).toBe(false);
    expect((await present("newest")).run).toBe(true);
  });
});
