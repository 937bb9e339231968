import { describe, expect, it } from "vitest";
import { ExecutionEngine } from "./execution-engine.ts";
import type { RecordedNode } from "./recorded.ts";
import { createTestCatalog, eventLog, workflow } from "./testing/test-nodes.ts";

/** a → pause → (yes → onYes) / (no → onNo), and `beside` (+1 on a) on its own. */
const gated = workflow(
  "gated",
  [
    { id: "a", type: "test:const", config: { value: 1 } },
    { id: "pause", type: "test:pause" },
    { id: "onYes", type: "test:add", inputs: { b: 10 } },
    { id: "onNo", type: "test:add", inputs: { b: 20 } },
    { id: "beside", type: "test:add", inputs: { b: 1 } },
  ],
  [
    ["a", "value", "pause", "value"],
    ["pause", "yes", "onYes", "a"],
    ["pause", "no", "onNo", "a"],
    ["a", "value", "beside", "a"],
  ],
);

describe("a node that pauses its run (suspendRun)", () => {
  it("ends the run `waiting` with the request once nothing else can run; what follows the node neither runs nor is recorded", async () => {
    const { catalog, probe } = createTestCatalog();
    const log = eventLog();
    const result = await new ExecutionEngine({ catalog }).run(gated, { onEvent: log.onEvent, mayPause: true });
    expect(result.status).toBe("waiting");
    expect(result.waiting).toEqual([{ nodeId: "pause", request: { asked: 1 } }]);
    expect(probe.executions.get("beside")).toBe(1);
    expect(probe.executions.get("onYes")).toBeUndefined();
    expect(result.observations.map((o) => o.nodeId).sort()).toEqual(["a", "beside"]);
    expect(log.ofType("run.waiting")).toMatchObject([{ waiting: [{ nodeId: "pause" }] }]);
    expect(log.ofType("run.completed")).toEqual([]);
  });

  it("resumes with the decision recorded: only the chosen branch runs, the other is skipped with the reason, nothing recorded runs again", async () => {
    const { catalog, probe } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });
    const first = await engine.run(gated, { mayPause: true });
    const recorded = new Map<string, RecordedNode>(first.observations.map((o) => [o.nodeId, { status: "completed", inputs: o.inputs, outputs: o.outputs }]));
    recorded.set("pause", { status: "completed", inputs: { value: 1 }, outputs: { yes: 1 } });
    const resumed = await engine.run(gated, { recorded, mayPause: true });
    expect(resumed.status).toBe("completed");
    expect(probe.executions.get("a")).toBe(1);
    expect(probe.executions.get("pause")).toBe(1);
    expect(probe.executions.get("onYes")).toBe(1);
    expect(probe.executions.get("onNo")).toBeUndefined();
    const onNo = resumed.observations.find((o) => o.nodeId === "onNo");
    expect(onNo).toMatchObject({ status: "skipped" });
    expect(onNo?.skipReason).toContain('"pause" gave no "no" output');
  });

  it("fails a run where another node failed: a failed run is not left waiting", async () => {
    const { catalog } = createTestCatalog();
    const wf = workflow("gated-failing", [
      { id: "pause", type: "test:pause" },
      { id: "bad", type: "test:fail", config: { message: "boom" } },
    ]);
    const result = await new ExecutionEngine({ catalog }).run(wf, { mayPause: true });
    expect(result.status).toBe("failed");
    expect(result.waiting).toBeUndefined();
  });

  it("fails the node in a run its caller cannot resume (no mayPause: an agent's tool call, a local run)", async () => {
    const { catalog, probe } = createTestCatalog();
    const result = await new ExecutionEngine({ catalog }).run(gated);
    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain("cannot do");
    expect(probe.executions.get("onYes")).toBeUndefined();
  });
});
