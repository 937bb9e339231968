/**
 * How every view shows a time: 24-hour with seconds (one convention in every view, narrow enough
 * for a timeline's column), with the day in front when it is not today, and the year when it is not
 * this year. The locale's own order and month names otherwise.
 */
// Made on first use: creating a formatter loads the locale's data (~0.1 s), which opening a workflow need not wait for.
let formats: { clock: Intl.DateTimeFormat; dayThisYear: Intl.DateTimeFormat; dayOtherYear: Intl.DateTimeFormat } | undefined;
function formatters() {
  formats ??= {
    clock: new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" }),
    dayThisYear: new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" }),
    dayOtherYear: new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric" }),
  };
  return formats;
}

type Instant = number | string | Date;
const toDate = (at: Instant): Date => (at instanceof Date ? at : new Date(at));

/** The time of day only ("14:03:22"), for lists within one day (a scene's timeline). */
export function formatClock(at: Instant): string {
  return formatters().clock.format(toDate(at));
}

/** "14:03:22" today, "Nov 28 14:03:22" another day this year, "Nov 28, 2025 14:03:22" before. */
export function formatWhen(at: Instant, now: Date = new Date()): string {
  const date = toDate(at);
  const { clock, dayThisYear, dayOtherYear } = formatters();
  if (date.toDateString() === now.toDateString()) return clock.format(date);
  const day = date.getFullYear() === now.getFullYear() ? dayThisYear : dayOtherYear;
  return `${day.format(date)} ${clock.format(date)}`;
}

/** A duration in milliseconds in a readable unit: "23 ms", "2.35 s", "14.2 s", "3 min 5 s" (a run, a node, an eval case). */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
