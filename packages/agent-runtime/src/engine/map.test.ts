import { describe, expect, it } from "vitest";
import { createBuiltinRegistry } from "@weft/nodes";
import type { Observation, WorkflowInput, WorkflowSource } from "@weft/types";
import { ExecutionEngine } from "./execution-engine.ts";
import { LruOutputCache } from "./cache/index.ts";

/** A skill of one node between its interface: `item` → <type> → `out`. */
function skillOf(id: string, type: string, port: string, outPort: string, config: Record<string, unknown> = {}, extraInputs: Record<string, unknown> = {}): WorkflowInput {
  return {
    id,
    name: id,
    nodes: [
      { id: "in", type: "core:workflow-input", config: { name: "item", portType: "any", required: true } },
      { id: "work", type, config, inputs: extraInputs },
      { id: "out", type: "core:workflow-output", config: { name: "out", portType: "any" } },
    ],
    edges: [
      { id: "e1", source: "in", sourceHandle: "value", target: "work", targetHandle: port },
      { id: "e2", source: "work", sourceHandle: outPort, target: "out", targetHandle: "value" },
    ],
  };
}

const SKILLS: Record<string, WorkflowInput> = {
  upper: skillOf("upper", "core:text-transform", "text", "text", { case: "upper" }),
  parse: skillOf("parse", "core:json-parse", "text", "value"),
  slow: skillOf("slow", "core:delay", "value", "value", {}, { ms: 60_000 }),
};

function setup() {
  const cache = new LruOutputCache();
  const engine = new ExecutionEngine({ catalog: createBuiltinRegistry(), cache, workflows: { getWorkflow: async (id) => SKILLS[id] } as WorkflowSource });
  const mapOver = (config: Record<string, unknown>, items: unknown[]) => engine.validate({ id: "main", name: "main", nodes: [{ id: "map", type: "core:map", config, inputs: { items } }], edges: [] });
  return { engine, mapOver };
}

const ran = (observations: Observation[], nodeType: string) => observations.filter((o) => o.nodeType === nodeType && o.status === "completed" && !o.cached).map((o) => o.nodeId);

describe("core:map", () => {
  it("runs a skill per item, results in item order, each item's nodes namespaced by its index", async () => {
    const { engine, mapOver } = setup();
    const checked = mapOver({ workflowId: "upper", concurrency: 3 }, ["a", "b", "c", "d", "e"]);
    if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
    const result = await engine.run(checked.workflow);
    expect(result.status, JSON.stringify(result.error)).toBe("completed");
    expect(result.outputs.results).toEqual(["A", "B", "C", "D", "E"].map((out) => ({ out })));
    expect(ran(result.observations, "core:text-transform").sort()).toEqual(["map[0]/work", "map[1]/work", "map[2]/work", "map[3]/work", "map[4]/work"]);
  });

  it("re-running after one item changed runs only that item's nodes", async () => {
    const { engine, mapOver } = setup();
    const first = mapOver({ workflowId: "upper" }, ["a", "b", "c"]);
    const second = mapOver({ workflowId: "upper" }, ["a", "B2", "c"]);
    if (!first.ok || !second.ok) throw new Error("invalid");
    await engine.run(first.workflow);
    const again = await engine.run(second.workflow);
    expect(again.outputs.results).toEqual([{ out: "A" }, { out: "B2" }, { out: "C" }]);
    expect(ran(again.observations, "core:text-transform")).toEqual(["map[1]/work"]);
  });

  it("runs a node type per item", async () => {
    const { engine, mapOver } = setup();
    const checked = mapOver({ nodeType: "core:text-transform", itemInput: "text" }, [" x ", "y"]);
    if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
    const result = await engine.run(checked.workflow);
    expect(result.outputs.results).toEqual([{ text: "x" }, { text: "y" }]);
  });

  it.each([
    ["skip", [{ out: { a: 1 } }, { out: [2] }]],
    ["collect", [{ out: { a: 1 } }, null, { out: [2] }]],
  ])("on error %s: goes on past the failed item and lists it", async (onError, results) => {
    const { engine, mapOver } = setup();
    const checked = mapOver({ workflowId: "parse", onError }, ['{"a":1}', "not json", "[2]"]);
    if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
    const result = await engine.run(checked.workflow);
    expect(result.status).toBe("completed");
    expect(result.outputs.results).toEqual(results);
    expect(result.outputs.errors).toEqual([{ index: 1, code: "SKILL_FAILED", message: expect.stringContaining('at node "map[1]/work"') }]);
  });

  it("on error stop: fails naming the item, and starts no item after it", async () => {
    const { engine, mapOver } = setup();
    const checked = mapOver({ workflowId: "parse", concurrency: 1 }, ["1", "oops", "3", "4"]);
    if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
    const result = await engine.run(checked.workflow);
    expect(result.status).toBe("failed");
    const failed = result.observations.find((o) => o.nodeId === "map");
    expect(failed?.error).toMatchObject({ code: "MAP_ITEM_FAILED", message: expect.stringContaining("Item 1 of 4 failed in parse") });
    expect(result.observations.filter((o) => o.nodeType === "core:json-parse").map((o) => o.nodeId)).toEqual(["map[0]/work", "map[1]/work"]);
  });

  it("is cancelled with the run: the items under way stop and no further item starts", async () => {
    const { engine, mapOver } = setup();
    const checked = mapOver({ workflowId: "slow", concurrency: 2 }, [1, 2, 3, 4, 5, 6]);
    if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
    const controller = new AbortController();
    const started: string[] = [];
    const run = engine.run(checked.workflow, {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "node.started" && event.nodeId.endsWith("/work")) {
          started.push(event.nodeId);
          if (started.length === 2) controller.abort();
        }
      },
    });
    const result = await run;
    expect(result.status).toBe("cancelled");
    expect(started).toEqual(["map[0]/work", "map[1]/work"]);
  });

  it("refuses a map with neither or both of skill and node type", async () => {
    const { engine, mapOver } = setup();
    const checked = mapOver({ workflowId: "upper", nodeType: "core:text-transform" }, ["a"]);
    if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
    const result = await engine.run(checked.workflow);
    expect(result.observations.find((o) => o.nodeId === "map")?.error).toMatchObject({ code: "INVALID_CONFIG", message: expect.stringContaining("exactly one") });
  });
});
