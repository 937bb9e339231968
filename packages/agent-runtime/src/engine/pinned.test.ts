import { describe, expect, it } from "vitest";
import type { Workflow } from "@weft/types";
import { ExecutionEngine } from "./execution-engine.ts";
import { freezeWorkflow } from "./frozen-workflow.ts";
import { pinOutputs } from "./pinned.ts";
import { createTestCatalog, workflow } from "./testing/test-nodes.ts";

/** a → plus (+10) → times (+100), with `plus` pinned or not. */
function pipeline(pinned?: Record<string, unknown>): Workflow {
  return workflow(
    "pinned",
    [
      { id: "a", type: "test:const", config: { value: 1 } },
      { id: "plus", type: "test:add", inputs: { b: 10 }, ...(pinned ? { pinned } : {}) },
      { id: "times", type: "test:add", inputs: { b: 100 } },
    ],
    [
      ["a", "value", "plus", "a"],
      ["plus", "sum", "times", "a"],
    ],
  );
}

describe("pinned outputs", () => {
  it("does not run a pinned node and hands its pinned outputs on", async () => {
    const { catalog, probe } = createTestCatalog();
    const result = await new ExecutionEngine({ catalog }).run(pipeline({ sum: 5 }));
    expect(result.status).toBe("completed");
    expect(probe.executions.get("plus")).toBeUndefined();
    expect(result.observations.find((o) => o.nodeId === "plus")?.outputs).toEqual({ sum: 5 });
    expect(result.observations.find((o) => o.nodeId === "times")?.outputs).toEqual({ sum: 105 });
  });

  it("never caches pinned outputs as the node's own: unpinned, it runs again", async () => {
    const { catalog, probe } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });
    await engine.run(pipeline({ sum: 5 }));
    const unpinned = await engine.run(pipeline());
    expect(probe.executions.get("plus")).toBe(1);
    expect(unpinned.observations.find((o) => o.nodeId === "times")?.outputs).toEqual({ sum: 111 });
    // And pinned again after a real run, the pin wins over the cache.
    const pinnedAgain = await engine.run(pipeline({ sum: 7 }));
    expect(pinnedAgain.observations.find((o) => o.nodeId === "times")?.outputs).toEqual({ sum: 107 });
  });

  it("runs each pinOutputs copy of a frozen workflow with its own pins, and leaves the frozen workflow's own run alone", async () => {
    const { catalog, probe } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });
    const frozen = freezeWorkflow(pipeline());
    const [five, seven] = await Promise.all([engine.run(pinOutputs(frozen, "plus", { sum: 5 })), engine.run(pinOutputs(frozen, "plus", { sum: 7 }))]);
    expect(five.observations.find((o) => o.nodeId === "times")?.outputs).toEqual({ sum: 105 });
    expect(seven.observations.find((o) => o.nodeId === "times")?.outputs).toEqual({ sum: 107 });
    expect((await engine.run(pinOutputs(frozen, "plus", { sum: 9 }))).observations.find((o) => o.nodeId === "times")?.outputs).toEqual({ sum: 109 });
    expect(probe.executions.get("plus")).toBeUndefined();
    // Unpinned, the node runs: neither a pin nor its outputs were left on the frozen workflow's graph or in the cache.
    const own = await engine.run(frozen);
    expect(probe.executions.get("plus")).toBe(1);
    expect(own.observations.find((o) => o.nodeId === "times")?.outputs).toEqual({ sum: 111 });
    expect(frozen.nodes[1]?.pinned).toBeUndefined();
    expect(() => (pinOutputs(frozen, "plus", { sum: 1 }).nodes[1]!.pinned = { sum: 2 })).toThrow();
  });
});
