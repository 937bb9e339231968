import { describe, expect, it } from "vitest";
import { ExecutionEngine } from "./execution-engine.ts";
import type { RecordedNode } from "./recorded.ts";
import { createTestCatalog, workflow } from "./testing/test-nodes.ts";

/** a → plus (+10) → times (+100), and `side` (+1 on a) beside them. */
const pipeline = workflow(
  "recorded",
  [
    { id: "a", type: "test:const", config: { value: 1 } },
    { id: "plus", type: "test:add", inputs: { b: 10 } },
    { id: "times", type: "test:add", inputs: { b: 100 } },
    { id: "side", type: "test:add", inputs: { b: 1 } },
  ],
  [
    ["a", "value", "plus", "a"],
    ["plus", "sum", "times", "a"],
    ["a", "value", "side", "a"],
  ],
);

describe("recorded nodes (a fork of an earlier run)", () => {
  it("does not execute recorded nodes: they end with the recorded inputs and outputs, as cached observations", async () => {
    const { catalog, probe } = createTestCatalog();
    const recorded = new Map<string, RecordedNode>([
      ["a", { status: "completed", inputs: {}, outputs: { value: 2 } }],
      ["plus", { status: "completed", inputs: { a: 2, b: 10 }, outputs: { sum: 40 } }],
      ["side", { status: "skipped", reason: "not re-run in this fork" }],
    ]);
    const result = await new ExecutionEngine({ catalog }).run(pipeline, { recorded });
    expect(result.status).toBe("completed");
    expect(probe.executions.get("a")).toBeUndefined();
    expect(probe.executions.get("plus")).toBeUndefined();
    expect(probe.executions.get("side")).toBeUndefined();
    expect(probe.executions.get("times")).toBe(1);
    const byId = new Map(result.observations.map((o) => [o.nodeId, o]));
    expect(byId.get("plus")).toMatchObject({ status: "completed", cached: true, attempts: 0, inputs: { a: 2, b: 10 }, outputs: { sum: 40 } });
    expect(byId.get("times")).toMatchObject({ status: "completed", cached: false, outputs: { sum: 140 } });
    expect(byId.get("side")).toMatchObject({ status: "skipped", skipReason: "not re-run in this fork" });
  });

  it("never caches what depends on a recorded output: the same graph without records runs every node", async () => {
    const { catalog, probe } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });
    await engine.run(pipeline, { recorded: new Map([["plus", { status: "completed", inputs: {}, outputs: { sum: 40 } }]]) });
    const live = await engine.run(pipeline);
    expect(probe.executions.get("plus")).toBe(1);
    expect(live.observations.find((o) => o.nodeId === "times")?.outputs).toEqual({ sum: 111 });
  });
});
