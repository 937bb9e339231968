import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChildServer } from "../testing/child-server.ts";
import { scheduledRuns, scheduleWorkflow } from "../testing/schedules.ts";
import { until } from "../testing/until.ts";
import { startQueueCluster, type QueueCluster } from "../queue/testing/queue-cluster.ts";

/**
 * Exactly once per tick in queue mode (real PostgreSQL and Redis, two API processes, a worker). API process A has the
 * test-only hook WEFT_TEST_EXIT_AFTER_SCHEDULE_CLAIM=1: it SIGKILLs itself right after the first claim it wins commits,
 * before the tick's run is queued in Redis (unset in production, the hook does nothing). B hands that run over.
 */
describe("a tick claimed by an API process killed before queueing its run (PostgreSQL, Redis)", () => {
  let cluster: QueueCluster;
  let survivor: ChildServer;
  let doomed: ChildServer;

  beforeAll(async () => {
    cluster = await startQueueCluster({
      name: "queue-schedule-crash",
      apiProcesses: 2,
      apiEnv: [{}, { WEFT_TEST_EXIT_AFTER_SCHEDULE_CLAIM: "1" }],
      workerArgs: ["--concurrency", "2"],
      env: { WEFT_WORKER_LOCK_MS: "5000" },
    });
    [survivor, doomed] = cluster.apis as [ChildServer, ChildServer];
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it("every tick from the first to the last has exactly one run, the killed process's tick included, and each completes", async () => {
    // `all`: a tick a busy pass fires late is still fired, so the ticks must be consecutive.
    expect((await survivor.call("POST", "/api/workflows", { workflow: scheduleWorkflow("every2", { cron: "*/2 * * * * *", catchUp: "all" }) })).status).toBe(201);
    expect((await survivor.call("PUT", "/api/workflows/every2/active", { active: true })).status).toBe(200);
    // A wins a claim sooner or later (the two race for each tick) and dies at once.
    await Promise.race([doomed.proc.exited, Bun.sleep(120_000)]);
    expect(doomed.proc.signalCode).toBe("SIGKILL");
    const diedAt = Date.now();
    // Its tick's run is handed over by B's recovery (after 15 s); then a few more ticks, and the schedule is stopped.
    await until(
      "runs past the killed process's claim",
      async () => {
        const runs = await scheduledRuns(survivor.call, "every2");
        return runs.some((r) => (r.trigger?.at ?? 0) > diedAt + 20_000) ? runs : undefined;
      },
      180_000,
    );
    expect((await survivor.call("PUT", "/api/workflows/every2/active", { active: false })).status).toBe(200);
    const done = await until(
      "every run to complete",
      async () => {
        const runs = await scheduledRuns(survivor.call, "every2");
        return runs.every((r) => r.status === "completed") ? runs : undefined;
      },
      180_000,
    );
    const ticks = done.map((r) => r.trigger?.scheduledFor ?? Number.NaN).sort((a, b) => a - b);
    expect(new Set(ticks).size).toBe(ticks.length);
    for (let i = 1; i < ticks.length; i++) expect(ticks[i] - ticks[i - 1]).toBe(2000);
  }, 420_000);
});
