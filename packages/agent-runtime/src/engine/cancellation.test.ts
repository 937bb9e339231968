import { describe, expect, it } from "vitest";
import { silentLogger, type RunEvent } from "@weft/types";
import { ExecutionEngine } from "./execution-engine.ts";
import { createTestCatalog, eventLog, workflow } from "./testing/test-nodes.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("ExecutionEngine cancellation", () => {
  it("an aborted signal reaches the running nodes, nothing new starts, the run ends with run.cancelled and nothing runs on", async () => {
    const { catalog, probe } = createTestCatalog();
    const wf = workflow(
      "cancel",
      [
        { id: "a", type: "test:delay", inputs: { ms: 150 } },
        { id: "b", type: "test:delay", inputs: { ms: 150 } },
        { id: "next", type: "test:delay", inputs: { ms: 10 } },
      ],
      [["a", "value", "next", "value"]],
    );
    const controller = new AbortController();
    const log = eventLog();
    setTimeout(() => controller.abort(), 20);
    const result = await new ExecutionEngine({ catalog }).run(wf, { signal: controller.signal, onEvent: log.onEvent });
    const eventsAtEnd = log.events.length;
    expect(result.status).toBe("cancelled");
    expect(result.error?.code).toBe("CANCELLED");
    expect(log.events.at(-1)).toMatchObject({ type: "run.cancelled", reason: "the run was cancelled" });
    expect([...probe.aborted].sort()).toEqual(["a", "b"]);
    const byNode = Object.fromEntries(result.observations.map((o) => [o.nodeId, o]));
    expect(byNode.a).toMatchObject({ status: "cancelled", error: { code: "CANCELLED" } });
    expect(byNode.next).toMatchObject({ status: "skipped", skipReason: "the run was cancelled before this node started" });
    // Long after the delays would have ended: nothing finished, nothing started, no more events.
    await sleep(250);
    expect(probe.finished.size).toBe(0);
    expect(probe.executions.has("next")).toBe(false);
    expect(log.events.length).toBe(eventsAtEnd);
  });

  it("a long stretch of synchronous nodes still yields, so an abort stops it part-way", async () => {
    const { catalog } = createTestCatalog();
    const n = 100_000;
    const nodes = [{ id: "n0", type: "test:const", config: { value: 0 } }, ...Array.from({ length: n - 1 }, (_, i) => ({ id: `n${i + 1}`, type: "test:add" }))];
    const edges = Array.from({ length: n - 1 }, (_, i) => [`n${i}`, i === 0 ? "value" : "sum", `n${i + 1}`, "a"] as [string, string, string, string]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5);
    const result = await new ExecutionEngine({ catalog }).run(workflow("long", nodes, edges), { signal: controller.signal });
    expect(result.status).toBe("cancelled");
    const completed = result.observations.filter((o) => o.status === "completed").length;
    expect(completed).toBeGreaterThan(0);
    expect(completed).toBeLessThan(n);
    expect(result.observations.filter((o) => o.status === "skipped")).toHaveLength(n - completed);
  });

  it("a signal aborted before the run starts runs nothing", async () => {
    const { catalog, probe } = createTestCatalog();
    const log = eventLog();
    const result = await new ExecutionEngine({ catalog }).run(workflow("w", [{ id: "d", type: "test:delay" }]), { signal: AbortSignal.abort(), onEvent: log.onEvent });
    expect(result.status).toBe("cancelled");
    expect(probe.executions.size).toBe(0);
    expect(log.events.map((e) => e.type)).toEqual(["run.started", "node.skipped", "run.cancelled"]);
  });

  it("does not wait forever for a node that ignores the signal: it is given up after the grace period", async () => {
    const { catalog, probe } = createTestCatalog();
    // The node takes 40× the grace period, and the signal is aborted just after it starts: the run must end long before it does.
    const wf = workflow("stubborn", [{ id: "deaf", type: "test:delay", inputs: { ms: 2_000 }, config: { ignoreAbort: true } }]);
    const controller = new AbortController();
    const log = eventLog();
    const onEvent = (event: RunEvent) => {
      log.onEvent(event);
      if (event.type === "node.started") setTimeout(() => controller.abort(), 0);
    };
    const result = await new ExecutionEngine({ catalog, cancelGraceMs: 50, logger: silentLogger }).run(wf, { signal: controller.signal, onEvent });
    expect(probe.finished.has("deaf")).toBe(false);
    expect(result.status).toBe("cancelled");
    expect(result.observations[0]).toMatchObject({ nodeId: "deaf", status: "cancelled", error: { message: expect.stringContaining("did not stop within 50 ms") } });
    const count = log.events.length;
    while (!probe.finished.has("deaf")) await sleep(20);
    // Its late completion is not reported: the run had ended.
    expect(log.events.length).toBe(count);
  });

  it("cancels inside a skill: the inner nodes get the signal too", async () => {
    const { catalog, probe } = createTestCatalog();
    const skill = workflow(
      "inner",
      [
        { id: "in", type: "core:workflow-input", config: { name: "x" } },
        { id: "wait", type: "test:delay", inputs: { ms: 300 } },
        { id: "out", type: "core:workflow-output", config: { name: "y" } },
      ],
      [["wait", "value", "out", "value"]],
    );
    const outer = workflow("outer", [{ id: "call", type: "core:skill", config: { workflowId: "inner" }, ports: { inputs: [], outputs: [{ id: "y", type: "any" }] } }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const result = await new ExecutionEngine({ catalog, workflows: { getWorkflow: async (id) => (id === "inner" ? skill : undefined) } }).run(outer, { signal: controller.signal });
    expect(result.status).toBe("cancelled");
    expect(probe.aborted.has("call/wait")).toBe(true);
    await sleep(350);
    expect(probe.finished.size).toBe(0);
  });
});
