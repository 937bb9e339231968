import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChildServer } from "../testing/child-server.ts";
import { scheduledRuns, scheduleWorkflow, type ScheduledRun } from "../testing/schedules.ts";
import { until } from "../testing/until.ts";
import { startQueueCluster, type QueueCluster } from "../queue/testing/queue-cluster.ts";

const TICKS = 10;

/** Schedules in queue mode: real PostgreSQL and Redis, two API processes each running a scheduler, a worker executing the runs. */
describe("schedules with two API processes on one PostgreSQL", () => {
  let cluster: QueueCluster;
  let apiA: ChildServer;
  let apiB: ChildServer;

  beforeAll(async () => {
    cluster = await startQueueCluster({ name: "queue-schedules", apiProcesses: 2, workerArgs: ["--concurrency", "2"], env: { WEFT_WORKER_LOCK_MS: "5000" } });
    [apiA, apiB] = cluster.apis as [ChildServer, ChildServer];
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it(`a schedule every 2 s fires exactly once per tick over ${TICKS} ticks, and the runs execute on the worker`, async () => {
    // `all`: a pass delayed past a tick by a busy machine still fires each tick, so the ticks must be consecutive.
    expect((await apiA.call("POST", "/api/workflows", { workflow: scheduleWorkflow("every2", { cron: "*/2 * * * * *", catchUp: "all" }) })).status).toBe(201);
    expect((await apiB.call("PUT", "/api/workflows/every2/active", { active: true })).status).toBe(200);
    const runs = await until(
      `${TICKS} ticks`,
      async () => {
        const all = await scheduledRuns(apiA.call, "every2");
        return all.length >= TICKS ? all : undefined;
      },
      180_000,
    );
    expect((await apiA.call("PUT", "/api/workflows/every2/active", { active: false })).status).toBe(200);
    // Each run is one tick: no two runs share one, and none is missing between the first and the last.
    const ticksOf = (all: ScheduledRun[]) => all.map((r) => r.trigger?.scheduledFor ?? Number.NaN).sort((a, b) => a - b);
    const ticks = ticksOf(await scheduledRuns(apiB.call, "every2"));
    expect(ticks.length).toBeGreaterThanOrEqual(TICKS);
    expect(new Set(ticks).size).toBe(ticks.length);
    for (let i = 1; i < ticks.length; i++) expect(ticks[i] - ticks[i - 1]).toBe(2000);
    expect(runs.every((r) => r.trigger?.kind === "schedule")).toBe(true);
    // The worker runs them: each ends completed with its tick as the output.
    const done = await until("the runs to finish", async () => {
      const all = await scheduledRuns(apiA.call, "every2");
      return all.every((r) => r.status === "completed") ? all : undefined;
    });
    expect(done.length).toBe(ticks.length);
  });
});
