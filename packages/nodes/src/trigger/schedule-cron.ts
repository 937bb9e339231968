import { Cron } from "croner";
import { ScheduleConfigSchema, type ScheduleCatchUp, type ScheduleConfig } from "@weft/types";

/** Ticks closer together than this are refused: a schedule is for recurring work, not a busy loop. */
export const MIN_SCHEDULE_INTERVAL_MS = 1000;

/** How late a tick may fire and still count as on time under the `none` catch-up policy (a busy process, a short restart). */
export const ON_TIME_GRACE_MS = 5000;

/** Ticks sampled to check the minimum interval (enough to see a burst such as `0-5 * * * * *`). */
const INTERVAL_SAMPLE = 64;

/** A schedule's config that is wrong: which field, what is wrong, and an example of a right one. */
export interface ScheduleProblem {
  field: "cron" | "timezone" | "catchUp" | "maxCatchUp";
  message: string;
}

export type ScheduleCheck = { ok: true; schedule: Schedule } | { ok: false; problem: ScheduleProblem };

const CRON_EXAMPLE = "e.g. `0 9 * * 1-5` (09:00 on weekdays) or `*/30 * * * * *` (every 30 seconds; six fields put seconds first)";

/** Whether `zone` is an IANA time zone this runtime knows (croner reads the expression in it). */
function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** A checked schedule: the tick times of a cron expression read in a time zone. */
export class Schedule {
  constructor(
    readonly config: ScheduleConfig,
    private readonly cron: Cron,
  ) {}

  /** The first tick strictly after `after` (epoch ms), or undefined when the expression has no more. */
  next(after: number): number | undefined {
    return this.cron.nextRun(new Date(after))?.getTime();
  }

  /** The next `count` ticks strictly after `after`. */
  upcoming(count: number, after: number): number[] {
    return this.cron.nextRuns(count, new Date(after)).map((d) => d.getTime());
  }

  /**
   * The ticks to fire now for a trigger whose stored next tick was `expected` (≤ now), oldest first, by the catch-up
   * policy: never more than `maxCatchUp`, and for `last` / `none` at most one — a long downtime is never a storm.
   */
  due(expected: number, now: number): number[] {
    // The ticks in [expected, now], latest first (previousRuns excludes its reference, so it is one past now).
    const limit = limitOf(this.config.catchUp, this.config.maxCatchUp);
    const latest = this.cron
      .previousRuns(limit, new Date(now + 1))
      .map((d) => d.getTime())
      .filter((t) => t >= expected && t <= now);
    if (latest.length === 0) return [];
    switch (this.config.catchUp) {
      case "last":
        return [latest[0]];
      case "none":
        return now - latest[0] <= ON_TIME_GRACE_MS ? [latest[0]] : [];
      case "all":
        return latest.reverse();
    }
  }
}

function limitOf(policy: ScheduleCatchUp, maxCatchUp: number): number {
  switch (policy) {
    case "last":
    case "none":
      return 1;
    case "all":
      return maxCatchUp;
  }
}

/**
 * Checks a `trigger:schedule` config: the cron expression parses, the time zone exists, the expression fires at all
 * and never twice within `MIN_SCHEDULE_INTERVAL_MS`. A problem names its field and shows a right value.
 */
export function checkSchedule(raw: unknown, now = Date.now()): ScheduleCheck {
  const parsed = ScheduleConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path[0];
    const known = field === "timezone" || field === "catchUp" || field === "maxCatchUp" ? field : "cron";
    return { ok: false, problem: { field: known, message: `${issue.path.join(".") || "config"}: ${issue.message}` } };
  }
  const config = parsed.data;
  if (!knownTimeZone(config.timezone)) {
    return { ok: false, problem: { field: "timezone", message: `timezone: "${config.timezone}" is not an IANA time zone; use one such as \`UTC\`, \`Europe/Berlin\` or \`America/New_York\`` } };
  }
  let cron: Cron;
  try {
    cron = new Cron(config.cron, { timezone: config.timezone, paused: true });
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^CronPattern: /, "") : String(error);
    return { ok: false, problem: { field: "cron", message: `cron: "${config.cron}" is not a cron expression (${why}); ${CRON_EXAMPLE}` } };
  }
  const ticks = cron.nextRuns(INTERVAL_SAMPLE, new Date(now)).map((d) => d.getTime());
  if (ticks.length === 0) return { ok: false, problem: { field: "cron", message: `cron: "${config.cron}" never fires (no such date comes); ${CRON_EXAMPLE}` } };
  for (let i = 1; i < ticks.length; i++) {
    if (ticks[i] - ticks[i - 1] < MIN_SCHEDULE_INTERVAL_MS) {
      return { ok: false, problem: { field: "cron", message: `cron: "${config.cron}" fires more often than once per second; ${CRON_EXAMPLE}` } };
    }
  }
  return { ok: true, schedule: new Schedule(config, cron) };
}
