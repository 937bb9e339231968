import { describe, expect, it } from "vitest";
import { connectCandidates } from "./connect-candidates.ts";
import { sampleWorkflow, testLookup } from "../../../shared/testing/catalog.ts";

describe("connectCandidates", () => {
  const doc = sampleWorkflow();

  it("offers the node's outputs to fitting inputs, then fitting outputs to its inputs, never an edge already drawn", () => {
    const offered = connectCandidates(doc, testLookup, "number_2");
    const directions = offered.map((c) => c.direction);
    expect(directions.indexOf("in") === -1 || directions.lastIndexOf("out") < directions.indexOf("in")).toBe(true);
    const outgoing = offered.filter((c) => c.direction === "out");
    expect(outgoing.every((c) => c.request.source === "number_2")).toBe(true);
    const requests = outgoing.map((c) => `${c.request.target}.${c.request.targetHandle}`);
    expect(requests).toContain("text_1.vars");
    // add_1.b is already fed by number_2: not offered again.
    expect(requests).not.toContain("add_1.b");
    // add_1.a is fed by number_1: offered, as a replacement.
    expect(offered.find((c) => c.request.target === "add_1" && c.request.targetHandle === "a")?.replaces).toBe("number_1.value->add_1.a");
  });

  it("refuses what the connection rule refuses: types that do not fit, cycles", () => {
    const intoAdd = connectCandidates(doc, testLookup, "add_1").filter((c) => c.direction === "in");
    // llm_1 gives a string: it cannot feed a number input.
    expect(intoAdd.some((c) => c.request.source === "llm_1")).toBe(false);
    const outOfAdd = connectCandidates(doc, testLookup, "add_1").filter((c) => c.direction === "out");
    // number_1 feeds add_1: add_1 → number_1 would be a cycle.
    expect(outOfAdd.some((c) => c.request.target === "number_1")).toBe(false);
  });

  it("names both ends by port and node title", () => {
    const [first] = connectCandidates(doc, testLookup, "number_2");
    expect(first?.label).toMatch(/^\S.* of .*\(number_2\) → .* of .*\(\w+_\d\)$/);
  });
});
