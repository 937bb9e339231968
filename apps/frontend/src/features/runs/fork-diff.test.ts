import { describe, expect, it } from "vitest";
import type { Observation } from "@weft/types";
import { changedNodes } from "./fork-diff.ts";

const obs = (nodeId: string, outputs: Record<string, unknown>, status: Observation["status"] = "completed"): Observation => ({
  runId: "r",
  nodeId,
  invocationId: `r:${nodeId}`,
  nodeType: "t",
  status,
  inputs: {},
  outputs,
  chunks: [],
  startedAt: 0,
  durationMs: 0,
  cached: false,
  attempts: 1,
});

describe("changedNodes", () => {
  it("lists the nodes whose outputs differ, and those completed in only one run", () => {
    const parent = [obs("a", { v: 1 }), obs("b", { v: 2 }), obs("c", {}, "skipped")];
    const fork = [obs("a", { v: 1 }), obs("b", { v: 3 }), obs("c", { v: 4 })];
    expect(changedNodes(parent, fork)).toEqual(["b", "c"]);
  });
});
