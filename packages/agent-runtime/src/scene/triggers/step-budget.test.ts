import { describe, expect, it } from "vitest";
import type { AgentTrigger } from "@weft/types";
import { StepBudget } from "./step-budget.ts";

const fromAgent = (source: string, topic: string): AgentTrigger => ({ id: "t", at: 0, coalesced: 0, kind: "event", topic, payload: null, source, eventSeq: 1 });

describe("StepBudget", () => {
  it("charges only events published by agents, and refuses once used up", () => {
    const budget = new StepBudget(3, new Set(["ann", "bob"]));
    expect(budget.tryCharge("ann", { id: "u", at: 0, coalesced: 0, kind: "user", text: "hi", to: "ann" })).toBe(true);
    expect(budget.tryCharge("ann", { id: "k", at: 0, coalesced: 0, kind: "timer", timerId: "c", message: "tick", tick: 1 })).toBe(true);
    expect(budget.tryCharge("ann", fromAgent("system", "x.y"))).toBe(true);
    expect(budget.used).toBe(0);

    expect(budget.tryCharge("bob", fromAgent("ann", "game.ping"))).toBe(true);
    expect(budget.tryCharge("ann", fromAgent("bob", "game.pong"))).toBe(true);
    expect(budget.tryCharge("bob", fromAgent("ann", "game.ping"))).toBe(true);
    expect(budget.exhausted).toBe(true);
    expect(budget.tryCharge("ann", fromAgent("bob", "game.pong"))).toBe(false);
    expect(budget.used).toBe(3);
    expect(budget.report()).toContain("ann → bob on game.ping (2×), bob → ann on game.pong (1×)");

    budget.reset();
    expect(budget.used).toBe(0);
    expect(budget.tryCharge("ann", fromAgent("bob", "game.pong"))).toBe(true);
  });
});
