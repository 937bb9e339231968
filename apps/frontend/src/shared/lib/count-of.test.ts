import { describe, expect, it } from "vitest";
import { countOf } from "./count-of.ts";

describe("countOf", () => {
  it("puts the noun in the plural for every count but one", () => {
    expect([0, 1, 2].map((n) => countOf(n, "agent"))).toEqual(["0 agents", "1 agent", "2 agents"]);
  });
});
