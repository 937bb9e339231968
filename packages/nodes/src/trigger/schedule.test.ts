import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { scheduleTrigger } from "./schedule.ts";
import { checkSchedule } from "./schedule-cron.ts";

const at = (iso: string) => Date.parse(iso);

function schedule(config: Record<string, unknown>) {
  const checked = checkSchedule(config, at("2026-03-01T00:00:00Z"));
  if (!checked.ok) throw new Error(checked.problem.message);
  return checked.schedule;
}

// End to end (a real server firing runs, two API processes on PostgreSQL): apps/backend/src/triggers/schedules*.test.ts.
describe("trigger:schedule", () => {
  it("run by hand gives now as both the tick and the fire time", async () => {
    const outputs = await runNode(scheduleTrigger, {}, { cron: "0 9 * * *" });
    expect(outputs.scheduledFor).toBe(outputs.firedAt);
    expect(Number.isNaN(Date.parse(String(outputs.scheduledFor)))).toBe(false);
  });

  it("refuses a bad expression or time zone, naming the field and showing a right one", async () => {
    const cron = await expectFailure(runNode(scheduleTrigger, {}, { cron: "61 * * * *" }), "INVALID_CONFIG");
    expect(cron.message).toMatch(/cron: "61 \* \* \* \*" is not a cron expression .*minute.*e\.g\. `0 9 \* \* 1-5`/);
    const zone = checkSchedule({ cron: "0 9 * * *", timezone: "Mars/Base" });
    expect(zone).toMatchObject({ ok: false, problem: { field: "timezone" } });
    expect(!zone.ok && zone.problem.message).toContain("Europe/Berlin");
    expect(checkSchedule({ cron: "0 0 31 2 *" })).toMatchObject({ ok: false, problem: { field: "cron", message: expect.stringContaining("never fires") } });
    expect(checkSchedule({ cron: "" })).toMatchObject({ ok: false, problem: { field: "cron" } });
    expect(checkSchedule({ cron: "* * * * *", catchUp: "storm" })).toMatchObject({ ok: false, problem: { field: "catchUp" } });
  });

  it("reads the expression in its time zone", () => {
    const berlin = schedule({ cron: "0 9 * * *", timezone: "Europe/Berlin" });
    expect(berlin.upcoming(2, at("2026-03-01T00:00:00Z")).map((t) => new Date(t).toISOString())).toEqual(["2026-03-01T08:00:00.000Z", "2026-03-02T08:00:00.000Z"]);
    // After the spring change 09:00 in Berlin is 07:00 UTC.
    expect(new Date(berlin.next(at("2026-04-01T00:00:00Z")) ?? 0).toISOString()).toBe("2026-04-01T07:00:00.000Z");
  });

  it("after downtime fires by its catch-up policy: the last missed tick once by default, none, or the latest N", () => {
    const hourly = { cron: "0 * * * *" };
    const expected = at("2026-03-01T01:00:00Z");
    const now = at("2026-03-01T06:30:00Z");
    expect(schedule(hourly).due(expected, now)).toEqual([at("2026-03-01T06:00:00Z")]);
    expect(schedule({ ...hourly, catchUp: "none" }).due(expected, now)).toEqual([]);
    expect(schedule({ ...hourly, catchUp: "all", maxCatchUp: 3 }).due(expected, now)).toEqual([at("2026-03-01T04:00:00Z"), at("2026-03-01T05:00:00Z"), at("2026-03-01T06:00:00Z")]);
    expect(schedule({ ...hourly, catchUp: "all", maxCatchUp: 50 }).due(expected, now)).toHaveLength(6);
    // On time (a tick that has just come) every policy fires it, the tick itself included.
    for (const catchUp of ["last", "none", "all"]) expect(schedule({ ...hourly, catchUp }).due(at("2026-03-01T06:00:00Z"), at("2026-03-01T06:00:00.400Z"))).toEqual([at("2026-03-01T06:00:00Z")]);
  });
});
