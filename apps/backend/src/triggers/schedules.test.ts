import { Database } from "bun:sqlite";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { checkSchedule } from "@weft/nodes";
import { startTestServer, tempDir, waitForRun, type TestServer } from "../testing/test-server.ts";
import { scheduledRuns, scheduleWorkflow } from "../testing/schedules.ts";
import { until } from "../testing/until.ts";

const ErrorBody = z.object({ error: z.object({ code: z.string(), message: z.string() }) });
const Triggers = z.object({
  triggers: z.array(
    z.object({ workflowId: z.string(), kind: z.string(), active: z.boolean(), cron: z.string().optional(), timezone: z.string().optional(), nextFires: z.array(z.number()).optional() }),
  ),
});

let t: TestServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = tempDir("weft-schedules-");
  t = await startTestServer({ dataDir });
});
afterAll(async () => {
  await t.stop();
});

async function save(id: string, config: Parameters<typeof scheduleWorkflow>[1]): Promise<void> {
  expect((await t.call("POST", "/api/workflows", { workflow: scheduleWorkflow(id, config) })).status).toBe(201);
}

async function activate(id: string, active = true): Promise<{ status: number; body: unknown }> {
  return t.call("PUT", `/api/workflows/${id}/active`, { active });
}

/** Waits until `workflowId` has at least `count` runs; answers them. */
const runsAtLeast = (workflowId: string, count: number) =>
  until(`${count} runs of ${workflowId}`, async () => {
    const runs = await scheduledRuns(t.call, workflowId);
    return runs.length >= count ? runs : undefined;
  });

describe("schedules (embedded SQLite)", () => {
  it("an active schedule starts runs that record their tick, and the Triggers list shows its cron and next five ticks", async () => {
    await save("every-second", { cron: "* * * * * *", timezone: "Europe/Berlin" });
    expect((await activate("every-second")).status).toBe(200);
    const [first] = await runsAtLeast("every-second", 1);
    expect(first.trigger).toMatchObject({ kind: "schedule", nodeId: "clock" });
    const scheduledFor = first.trigger?.scheduledFor ?? 0;
    expect(scheduledFor % 1000).toBe(0);
    expect(first.trigger?.at).toBeGreaterThanOrEqual(scheduledFor);
    // The node's output is the tick it ran for.
    const done = await waitForRun(t, first.id);
    expect(done.run.outputs).toEqual({ tick: new Date(scheduledFor).toISOString() });
    const listed = Triggers.parse((await t.call("GET", "/api/triggers")).body).triggers.find((x) => x.workflowId === "every-second");
    expect(listed).toMatchObject({ kind: "schedule", active: true, cron: "* * * * * *", timezone: "Europe/Berlin" });
    const next = listed?.nextFires ?? [];
    expect(next).toHaveLength(5);
    for (let i = 1; i < next.length; i++) expect(next[i] - next[i - 1]).toBe(1000);
  });

  it("a bad cron expression or time zone is refused, naming the field and an example, and never fires", async () => {
    await save("bad-cron", { cron: "61 * * * *" });
    const refused = await activate("bad-cron");
    expect(refused.status).toBe(400);
    const error = ErrorBody.parse(refused.body).error;
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.message).toMatch(/trigger node "clock": config\.cron: "61 \* \* \* \*" is not a cron expression .*minute.*e\.g\./);
    await save("bad-zone", { cron: "* * * * * *", timezone: "Mars/Olympus" });
    expect(ErrorBody.parse((await activate("bad-zone")).body).error.message).toMatch(/config\.timezone: "Mars\/Olympus" is not an IANA time zone; use one such as `UTC`/);
    // The inspector's preview answers the same, with the field for the form.
    const preview = await t.call("POST", "/api/triggers/schedule-preview", { cron: "*/5 * * * *", timezone: "Mars/Olympus" });
    expect(preview.status).toBe(400);
    expect(preview.body).toMatchObject({ error: { code: "VALIDATION_FAILED", details: { issues: [{ path: ["timezone"] }] } } });
    const good = z.object({ nextFires: z.array(z.number()) }).parse((await t.call("POST", "/api/triggers/schedule-preview", { cron: "0 9 * * 1-5", timezone: "UTC" })).body);
    expect(good.nextFires).toHaveLength(5);
    expect(good.nextFires.every((ms) => new Date(ms).getUTCHours() === 9 && ![0, 6].includes(new Date(ms).getUTCDay()))).toBe(true);
    // The workflows that were refused are off, and while another schedule fires three times they never do.
    const before = (await scheduledRuns(t.call, "every-second")).length;
    await runsAtLeast("every-second", before + 3);
    expect(await scheduledRuns(t.call, "bad-cron")).toHaveLength(0);
    expect(await scheduledRuns(t.call, "bad-zone")).toHaveLength(0);
  });

  it("an inactive workflow never fires, and switching one off stops it", async () => {
    // Another schedule that is on: its ticks show the scheduler's passes going by.
    await save("witness-on", { cron: "* * * * * *" });
    expect((await activate("witness-on")).status).toBe(200);
    await save("never-on", { cron: "* * * * * *" });
    await save("switched-off", { cron: "* * * * * *" });
    expect((await activate("switched-off")).status).toBe(200);
    await runsAtLeast("switched-off", 1);
    expect((await activate("switched-off", false)).status).toBe(200);
    // Two passes later (two more ticks of another schedule) nothing of it is under way any more.
    await runsAtLeast("witness-on", (await scheduledRuns(t.call, "witness-on")).length + 2);
    const afterOff = (await scheduledRuns(t.call, "switched-off")).length;
    await runsAtLeast("witness-on", (await scheduledRuns(t.call, "witness-on")).length + 3);
    expect(await scheduledRuns(t.call, "switched-off")).toHaveLength(afterOff);
    expect(await scheduledRuns(t.call, "never-on")).toHaveLength(0);
  });

  it("a save that changes the schedule of an active workflow re-arms it: the new expression fires without switching it off and on", async () => {
    await save("edited", { cron: "0 0 1 1 *" });
    expect((await activate("edited")).status).toBe(200);
    const stored = z.object({ workflow: z.object({ revision: z.number() }) }).parse((await t.call("GET", "/api/workflows/edited")).body);
    const changed = scheduleWorkflow("edited", { cron: "* * * * * *" });
    expect((await t.call("PUT", "/api/workflows/edited", { workflow: changed, baseRevision: stored.workflow.revision })).status).toBe(200);
    const [run] = await runsAtLeast("edited", 1);
    // A tick of the new expression (every second), not the old one's next New Year.
    expect(new Date(run.trigger?.scheduledFor ?? 0).getUTCFullYear()).toBe(new Date().getUTCFullYear());
    expect(await activate("edited", false)).toMatchObject({ status: 200 });
  });

  it("after downtime catches up by its policy: the last missed tick once by default, none, or the latest N", async () => {
    const daily = "0 0 * * *";
    await save("catch-last", { cron: daily });
    await save("catch-none", { cron: daily, catchUp: "none" });
    await save("catch-two", { cron: daily, catchUp: "all", maxCatchUp: 2 });
    for (const id of ["catch-last", "catch-none", "catch-two"]) expect((await activate(id)).status).toBe(200);
    for (const id of ["every-second", "witness-on"]) await activate(id, false);
    await t.stop();
    // Down for three days: the stored next tick is moved back to midnight three days ago.
    const checked = checkSchedule({ cron: daily, catchUp: "all", maxCatchUp: 2 });
    if (!checked.ok) throw new Error(checked.problem.message);
    const [dayBefore, lastMidnight] = checked.schedule.due(0, Date.now());
    const db = new Database(join(dataDir, "weft.sqlite"));
    db.run("UPDATE triggers SET next_fire_at = ? WHERE workflow_id IN ('catch-last', 'catch-none', 'catch-two')", [lastMidnight - 3 * 86_400_000]);
    db.close();

    t = await startTestServer({ dataDir });
    await save("witness", { cron: "* * * * * *" });
    expect((await activate("witness")).status).toBe(200);
    // Three passes of the restarted scheduler (three ticks of another schedule) have seen the missed ticks.
    await runsAtLeast("witness", 3);
    const ticks = async (id: string) => (await scheduledRuns(t.call, id)).map((r) => r.trigger?.scheduledFor).sort();
    expect(await ticks("catch-last")).toEqual([lastMidnight]);
    expect(await ticks("catch-none")).toEqual([]);
    expect(await ticks("catch-two")).toEqual([dayBefore, lastMidnight]);
  });
});

/**
 * A save re-arms at once. The periodic sync (which would arm it within 10 s otherwise) runs here once at start and then
 * only after an hour, so the run below can only come from the save itself.
 */
describe("a save re-arms at once (embedded SQLite, no periodic sync)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ dataDir: tempDir("weft-schedules-rearm-"), scheduleSyncMs: 3_600_000 });
  });
  afterAll(async () => {
    await s.stop();
  });

  it("an active workflow whose schedule is changed from never-due to every second fires after the save, without switching it off and on", async () => {
    expect((await s.call("POST", "/api/workflows", { workflow: scheduleWorkflow("rearmed", { cron: "0 0 1 1 *" }) })).status).toBe(201);
    expect((await s.call("PUT", "/api/workflows/rearmed/active", { active: true })).status).toBe(200);
    const stored = z.object({ workflow: z.object({ revision: z.number() }) }).parse((await s.call("GET", "/api/workflows/rearmed")).body);
    const saved = await s.call("PUT", "/api/workflows/rearmed", { workflow: scheduleWorkflow("rearmed", { cron: "*/1 * * * * *" }), baseRevision: stored.workflow.revision });
    expect(saved.status).toBe(200);
    const [run] = await until("a run of the saved schedule", async () => {
      const runs = await scheduledRuns(s.call, "rearmed");
      return runs.length > 0 ? runs : undefined;
    });
    // A tick of the saved expression (every second), not the old one's next New Year.
    expect(new Date(run.trigger?.scheduledFor ?? 0).getUTCFullYear()).toBe(new Date().getUTCFullYear());
    expect((await s.call("PUT", "/api/workflows/rearmed/active", { active: false })).status).toBe(200);
  });
});
