import { describe, expect, it } from "vitest";
import { costPerStepText, perStepTitle } from "./usage-format.ts";

describe("cost per agent step (scenes have no simulated clock)", () => {
  it("divides the cost by the steps (one LLM call each), keeps the + of unpriced calls, and says — when the cost is unknown", () => {
    expect(costPerStepText({ costUsd: 0.00362, calls: 1, unpricedCalls: 0 })).toBe("$0.00362 per step");
    expect(costPerStepText({ costUsd: 12, calls: 4, unpricedCalls: 0 })).toBe("$3.00 per step");
    expect(costPerStepText({ costUsd: 0.01, calls: 3, unpricedCalls: 1 })).toBe("$0.00333 + per step");
    expect(costPerStepText({ costUsd: null, calls: 2, unpricedCalls: 2 })).toBe("— per step");
    expect(costPerStepText({ costUsd: 0, calls: 0, unpricedCalls: 0 })).toBe("— per step");
  });

  it("says what it divides and why it is not per simulated hour", () => {
    expect(perStepTitle({ calls: 1200 })).toContain("1,200 agent step(s)");
    expect(perStepTitle({ calls: 1 })).toContain("no simulated clock");
  });
});
