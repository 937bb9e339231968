import { describe, expect, it } from "vitest";
import { formatClock, formatDuration, formatWhen } from "./time-format.ts";

describe("time format", () => {
  const now = new Date(2026, 10, 29, 15, 0, 0);

  it("writes the time of day 24-hour with seconds, never AM/PM", () => {
    const afternoon = new Date(2026, 10, 29, 14, 3, 22);
    expect(formatClock(afternoon)).toMatch(/^14\D03\D22$/);
    expect(formatClock(afternoon.getTime())).toBe(formatClock(afternoon.toISOString()));
    expect(formatWhen(afternoon, now)).toBe(formatClock(afternoon));
    expect(formatWhen(afternoon, now)).not.toMatch(/AM|PM/i);
  });

  it("puts the day in front of another day's time, and the year for another year's", () => {
    const yesterday = new Date(2026, 10, 28, 9, 5, 0);
    expect(formatWhen(yesterday, now)).not.toBe(formatClock(yesterday));
    expect(formatWhen(yesterday, now).endsWith(formatClock(yesterday))).toBe(true);
    expect(formatWhen(yesterday, now)).not.toContain("2026");
    expect(formatWhen(new Date(2025, 0, 2, 9, 5, 0), now)).toContain("2025");
  });

  it("writes a duration in a readable unit, never a raw float", () => {
    expect(formatDuration(23.28935199999978)).toBe("23 ms");
    expect(formatDuration(2_345)).toBe("2.35 s");
    expect(formatDuration(14_240)).toBe("14.2 s");
    expect(formatDuration(185_000)).toBe("3 min 5 s");
    expect(formatDuration(undefined)).toBe("");
  });
});
