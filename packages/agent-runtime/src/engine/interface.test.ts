import { describe, expect, it } from "vitest";
import { ExecutionEngine } from "./execution-engine.ts";
import { createTestCatalog, eventLog, workflow } from "./testing/test-nodes.ts";

/** greeting (string, required) and times (number, default 2) → shout, total. */
function interfaceWorkflow() {
  return workflow(
    "iface",
    [
      { id: "greeting", type: "core:workflow-input", config: { name: "greeting", portType: "string", required: true } },
      { id: "times", type: "core:workflow-input", config: { name: "times", portType: "number", default: 2 } },
      { id: "upper", type: "test:upper" },
      { id: "add", type: "test:add", inputs: { b: 10 } },
      { id: "shout", type: "core:workflow-output", config: { name: "shout", portType: "string" } },
      { id: "total", type: "core:workflow-output", config: { name: "total", portType: "number" } },
    ],
    [
      ["greeting", "value", "upper", "text"],
      ["upper", "text", "shout", "value"],
      ["times", "value", "add", "a"],
      ["add", "sum", "total", "value"],
    ],
  );
}

describe("ExecutionEngine interface inputs and outputs", () => {
  it("injects interface inputs by name (defaults when absent) and returns the workflow-output values by name", async () => {
    const { catalog } = createTestCatalog();
    const log = eventLog();
    const result = await new ExecutionEngine({ catalog }).run(interfaceWorkflow(), { inputs: { greeting: "hi" }, onEvent: log.onEvent });
    expect(result.status).toBe("completed");
    expect(result.outputs).toEqual({ shout: "HI", total: 12 });
    expect(log.events[0]).toMatchObject({ type: "run.started", inputs: { greeting: "hi" }, nodeCount: 6 });
    expect(log.events.at(-1)).toMatchObject({ type: "run.completed", outputs: { shout: "HI", total: 12 } });
    const again = await new ExecutionEngine({ catalog }).run(interfaceWorkflow(), { inputs: { greeting: "yo", times: 5 } });
    expect(again.outputs).toEqual({ shout: "YO", total: 15 });
  });

  it("fails with INVALID_INPUT naming each missing, mistyped or unknown input, before running anything", async () => {
    const { catalog, probe } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });
    const missing = await engine.run(interfaceWorkflow(), { inputs: {} });
    expect(missing).toMatchObject({ status: "failed", error: { code: "INVALID_INPUT", message: 'missing required input "greeting" (string)' } });
    const wrong = await engine.run(interfaceWorkflow(), { inputs: { greeting: 42, times: "many", extra: true } });
    expect(wrong.error?.code).toBe("INVALID_INPUT");
    expect(wrong.error?.message).toContain('has no input "extra" (its inputs are "greeting", "times")');
    expect(wrong.error?.message).toContain('input "greeting" must be a string, got number');
    expect(wrong.error?.message).toContain('input "times" must be a number, got string');
    expect(wrong.error?.details?.problems).toHaveLength(3);
    expect(probe.executions.size).toBe(0);
  });

  it("leaves an optional input without default unset: what depends on it is skipped", async () => {
    const { catalog } = createTestCatalog();
    const wf = workflow(
      "optional",
      [
        { id: "maybe", type: "core:workflow-input", config: { name: "maybe", portType: "string" } },
        { id: "upper", type: "test:upper" },
        { id: "out", type: "core:workflow-output", config: { name: "out" } },
      ],
      [
        ["maybe", "value", "upper", "text"],
        ["upper", "text", "out", "value"],
      ],
    );
    const result = await new ExecutionEngine({ catalog }).run(wf);
    expect(result.status).toBe("completed");
    expect(result.outputs).toEqual({});
    expect(result.observations.find((o) => o.nodeId === "upper")?.status).toBe("skipped");
  });

  it("singleNodeWorkflow: one node, the params as literal inputs, all its outputs as the run's outputs", async () => {
    const { catalog } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });
    const wf = engine.singleNodeWorkflow("test:router", { value: "v", condition: false });
    expect(wf.nodes).toEqual([expect.objectContaining({ type: "test:router", inputs: { value: "v", condition: false } })]);
    expect(wf.edges).toEqual([]);
    expect(engine.validate(wf).ok).toBe(true);
    const result = await engine.run(wf);
    expect(result).toMatchObject({ status: "completed", outputs: { no: "v" } });
    const add = await engine.run(engine.singleNodeWorkflow("test:add", { a: 2 }));
    expect(add.outputs).toEqual({ sum: 3 });
    const bad = await engine.run(engine.singleNodeWorkflow("test:add", { a: "two" }));
    expect(bad.error?.code).toBe("INVALID_WORKFLOW");
    const unknown = await engine.run(engine.singleNodeWorkflow("test:ad", {}));
    expect(unknown.error?.message).toContain('did you mean "test:add"');
  });
});
