import { describe, expect, it } from "vitest";
import type { UsageRow } from "./usage-api.ts";
import { costPerHourText, costPerStepText, durationText, perHourTitle, perStepTitle } from "./usage-format.ts";
import { sumUsageRows } from "./usage-rows.ts";

describe("cost per agent step", () => {
  it("divides the cost by the steps (one LLM call each), keeps the + of unpriced calls, and says — when the cost is unknown", () => {
    expect(costPerStepText({ costUsd: 0.00362, calls: 1, unpricedCalls: 0 })).toBe("$0.00362 per step");
    expect(costPerStepText({ costUsd: 12, calls: 4, unpricedCalls: 0 })).toBe("$3.00 per step");
    expect(costPerStepText({ costUsd: 0.01, calls: 3, unpricedCalls: 1 })).toBe("$0.00333 + per step");
    expect(costPerStepText({ costUsd: null, calls: 2, unpricedCalls: 2 })).toBe("— per step");
    expect(costPerStepText({ costUsd: 0, calls: 0, unpricedCalls: 0 })).toBe("— per step");
  });

  it("says what it divides", () => {
    expect(perStepTitle({ calls: 1200 })).toContain("1,200 agent step(s)");
  });
});

describe("cost per hour of scene time", () => {
  it("divides the session's cost by the scene's running time, and says — before it ran or when the cost is unknown", () => {
    expect(costPerHourText({ costUsd: 0.5, unpricedCalls: 0 }, 1_800_000)).toBe("$1.00 per scene hour");
    expect(costPerHourText({ costUsd: 0.00362, unpricedCalls: 0 }, 3_600_000)).toBe("$0.00362 per scene hour");
    expect(costPerHourText({ costUsd: 0.01, unpricedCalls: 2 }, 3_600_000)).toBe("$0.0100 + per scene hour");
    expect(costPerHourText({ costUsd: 0.5, unpricedCalls: 0 }, 0)).toBe("— per scene hour");
    expect(costPerHourText({ costUsd: null, unpricedCalls: 1 }, 60_000)).toBe("— per scene hour");
  });

  it("names the running time it divides by", () => {
    expect(durationText(12_400)).toBe("12 s");
    expect(durationText(250_000)).toBe("4 min 10 s");
    expect(durationText(3_900_000)).toBe("1 h 05 min");
    expect(perHourTitle(250_000)).toContain("4 min 10 s running");
  });
});

describe("summing report rows", () => {
  const row = (costUsd: number | null, calls: number): UsageRow => ({
    calls,
    promptTokens: 10 * calls,
    completionTokens: calls,
    cachedTokens: 0,
    reasoningTokens: 0,
    totalTokens: 11 * calls,
    costUsd,
    unpricedCalls: costUsd === null ? calls : 0,
    estimatedCalls: 0,
  });
  it("adds what the server adds: priced calls' cost only, null when none was priced", () => {
    expect(sumUsageRows([])).toBeUndefined();
    expect(sumUsageRows([row(null, 2)])?.costUsd).toBeNull();
    const sum = sumUsageRows([row(0.25, 1), row(null, 2), row(0.5, 3)]);
    expect(sum).toMatchObject({ calls: 6, totalTokens: 66, costUsd: 0.75, unpricedCalls: 2 });
  });
});
