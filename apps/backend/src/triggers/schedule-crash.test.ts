import { Database } from "bun:sqlite";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnServer, type ChildServer } from "../testing/child-server.ts";
import { tempDir } from "../testing/temp-dirs.ts";
import { scheduledRuns, scheduleWorkflow } from "../testing/schedules.ts";
import { until } from "../testing/until.ts";

const children: ChildServer[] = [];
afterAll(async () => {
  for (const child of children) {
    child.proc.kill("SIGKILL");
    await child.proc.exited;
  }
});

/**
 * Exactly once per tick, embedded SQLite. WEFT_TEST_EXIT_AFTER_SCHEDULE_CLAIM=1 makes the server SIGKILL itself right
 * after its first claim commits, before the tick's run is handed to the run queue (a test-only hook: unset in
 * production, it does nothing). The server started again on the same data folder runs that tick's run, once.
 */
describe("a schedule's tick survives the death of the process that claimed it (embedded SQLite)", () => {
  it("the run of the tick claimed just before a SIGKILL executes once after the restart", async () => {
    const dataDir = tempDir("weft-schedule-crash-");
    const doomed = await spawnServer(dataDir, { WEFT_TEST_EXIT_AFTER_SCHEDULE_CLAIM: "1" });
    children.push(doomed);
    expect((await doomed.call("POST", "/api/workflows", { workflow: scheduleWorkflow("tick", { cron: "* * * * * *", catchUp: "none" }) })).status).toBe(201);
    expect((await doomed.call("PUT", "/api/workflows/tick/active", { active: true })).status).toBe(200);
    // It kills itself at its first claim (within a second or two of the switch).
    expect(await doomed.proc.exited).not.toBe(0);
    expect(doomed.proc.signalCode).toBe("SIGKILL");

    // The claim moved the stored next tick one second past the tick it claimed.
    const db = new Database(join(dataDir, "weft.sqlite"));
    const row = db.query<{ next_fire_at: number }, []>("SELECT next_fire_at FROM triggers WHERE workflow_id = 'tick'").get();
    db.close();
    const claimed = Number(row?.next_fire_at) - 1000;

    const again = await spawnServer(dataDir);
    children.push(again);
    // Stopped so that only the claimed tick (and whatever the restart fires) is there to look at.
    expect((await again.call("PUT", "/api/workflows/tick/active", { active: false })).status).toBe(200);
    const done = await until(
      "the claimed tick's run to complete",
      async () => {
        const runs = (await scheduledRuns(again.call, "tick")).filter((r) => r.trigger?.scheduledFor === claimed);
        return runs.some((r) => r.status === "completed") ? runs : undefined;
      },
      120_000,
    );
    expect(done).toHaveLength(1);
    const ticks = (await scheduledRuns(again.call, "tick")).map((r) => r.trigger?.scheduledFor);
    expect(new Set(ticks).size).toBe(ticks.length);
  }, 180_000);
});
