import { describe, expect, it } from "vitest";
import { defineNode, NodeRegistry } from "@weft/nodes";
import type { NodeCatalog, Workflow, WorkflowNode } from "@weft/types";
import { ExecutionEngine } from "./execution-engine.ts";
import { freezeWorkflow, isFrozenWorkflow } from "./frozen-workflow.ts";
import { createTestCatalog, workflow } from "./testing/test-nodes.ts";

/** const(2) → add(+10) → add(+100), its first node's `config` counting how often it is read (only compiling reads it). */
function counted(): { wf: Workflow; reads: () => number } {
  const wf = workflow(
    "frozen",
    [
      { id: "a", type: "test:const", config: { value: 2 } },
      { id: "plus", type: "test:add", inputs: { b: 10 }, policy: { cacheable: false } },
      { id: "times", type: "test:add", inputs: { b: 100 }, policy: { cacheable: false } },
    ],
    [
      ["a", "value", "plus", "a"],
      ["plus", "sum", "times", "a"],
    ],
  );
  let reads = 0;
  const first = wf.nodes[0]!;
  const config = first.config;
  const node: WorkflowNode = { ...first };
  Object.defineProperty(node, "config", {
    enumerable: true,
    get: () => {
      reads++;
      return config;
    },
  });
  wf.nodes[0] = node;
  return { wf, reads: () => reads };
}

describe("freezeWorkflow", () => {
  it("freezes the workflow through and through", () => {
    const wf = freezeWorkflow(workflow("w", [{ id: "a", type: "test:const", config: { value: { deep: [1] } } }]));
    expect(isFrozenWorkflow(wf)).toBe(true);
    expect(Object.isFrozen(wf.nodes)).toBe(true);
    expect(Object.isFrozen(wf.nodes[0]!.config)).toBe(true);
    expect(Object.isFrozen((wf.nodes[0]!.config.value as { deep: number[] }).deep)).toBe(true);
    expect(() => {
      (wf.nodes[0] as { id: string }).id = "b";
    }).toThrow(TypeError);
    // A copy is a workflow of its own, not frozen.
    expect(isFrozenWorkflow(structuredClone(wf))).toBe(false);
  });

  it("compiles a frozen workflow once for every engine on the same catalog, and an unfrozen one at every run", async () => {
    const { catalog } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });

    const loose = counted();
    expect((await engine.run(loose.wf)).outputs).toBeDefined();
    const afterOne = loose.reads();
    expect(afterOne).toBeGreaterThan(0);
    await engine.run(loose.wf);
    expect(loose.reads()).toBe(2 * afterOne);

    const fixed = counted();
    freezeWorkflow(fixed.wf);
    const first = await engine.run(fixed.wf);
    const readsAfterFirst = fixed.reads();
    const second = await engine.run(fixed.wf);
    expect(fixed.reads()).toBe(readsAfterFirst);
    for (const run of [first, second]) {
      expect(run.status).toBe("completed");
      expect(run.observations.find((o) => o.nodeId === "times")?.outputs).toEqual({ sum: 112 });
    }
    // Another engine on the same catalog (the server builds one per run) runs the graph already compiled…
    await new ExecutionEngine({ catalog }).run(fixed.wf);
    expect(fixed.reads()).toBe(readsAfterFirst);
    // …and one whose catalog gives other definitions compiles it for itself.
    const other = await new ExecutionEngine({ catalog: createTestCatalog().catalog }).run(fixed.wf);
    expect(fixed.reads()).toBeGreaterThan(readsAfterFirst);
    expect(other.observations.find((o) => o.nodeId === "times")?.outputs).toEqual({ sum: 112 });
  });

  it("compiles a frozen workflow again when a node type's definition changes in the catalog", async () => {
    const { catalog: registry } = createTestCatalog();
    let add = registry.get("test:add")!;
    const catalog: NodeCatalog = { get: (type) => (type === "test:add" ? add : registry.get(type)), list: () => registry.list(), suggest: (type) => registry.suggest(type) };
    const engine = new ExecutionEngine({ catalog });
    const { wf } = counted();
    freezeWorkflow(wf);
    expect((await engine.run(wf)).observations.find((o) => o.nodeId === "times")?.outputs).toEqual({ sum: 112 });

    add = defineNode({ ...add.spec }, (inputs) => ({ sum: (inputs.a as number) * (inputs.b as number) }));
    const again = await engine.run(wf);
    expect(again.observations.find((o) => o.nodeId === "times")?.outputs).toEqual({ sum: 2000 });

    // A type that is gone fails the run as it does for any workflow.
    const without = new NodeRegistry();
    const gone = await new ExecutionEngine({ catalog: without }).run(wf);
    expect(gone.status).toBe("failed");
    expect(gone.error?.code).toBe("INVALID_WORKFLOW");
  });
});
