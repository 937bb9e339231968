import { describe, expect, it } from "vitest";
import type { WorkflowInput } from "@weft/types";
import { ExecutionEngine } from "./execution-engine.ts";
import { createTestCatalog, eventLog, workflow } from "./testing/test-nodes.ts";

type Policy = NonNullable<WorkflowInput["nodes"][number]["policy"]>;

/** src → bad (fails) → after → end, and an independent slow branch → out. */
function failingBranch(policy?: Policy) {
  return workflow(
    "failing",
    [
      { id: "src", type: "test:const", config: { value: "x" } },
      { id: "bad", type: "test:fail", config: { code: "BROKEN", message: "it broke" }, ...(policy ? { policy } : {}) },
      { id: "after", type: "test:upper" },
      { id: "end", type: "test:upper" },
      { id: "slow", type: "test:delay", inputs: { ms: 30, value: "fine" } },
      { id: "out", type: "core:workflow-output", config: { name: "result" } },
      { id: "out2", type: "core:workflow-output", config: { name: "broken" } },
    ],
    [
      ["src", "value", "bad", "value"],
      ["bad", "value", "after", "text"],
      ["after", "text", "end", "text"],
      ["slow", "value", "out", "value"],
      ["end", "text", "out2", "value"],
    ],
  );
}

describe("ExecutionEngine failures", () => {
  it("continue (default): the failing node's dependents are skipped, independent branches finish, the run fails with partial outputs", async () => {
    const { catalog, probe } = createTestCatalog();
    const log = eventLog();
    const result = await new ExecutionEngine({ catalog }).run(failingBranch(), { onEvent: log.onEvent });
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({ code: "BROKEN", message: 'node "bad" failed: it broke', details: { nodeId: "bad", failedNodeIds: ["bad"] } });
    expect(result.outputs).toEqual({ result: "fine" });
    expect(probe.finished.has("slow")).toBe(true);
    expect(log.ofType("node.failed").map((e) => [e.nodeId, e.error.code])).toEqual([["bad", "BROKEN"]]);
    expect(log.ofType("node.skipped").map((e) => [e.nodeId, e.causeNodeId, e.reason])).toEqual([
      ["after", "bad", 'input "text" comes from "bad", which failed'],
      ["end", "after", 'input "text" comes from "after", which was skipped'],
      ["out2", "end", 'input "value" comes from "end", which was skipped'],
    ]);
    expect(result.observations.filter((o) => o.status === "skipped").map((o) => [o.nodeId, o.skipReason])).toContainEqual(["after", 'input "text" comes from "bad", which failed']);
    expect(log.events.at(-1)).toMatchObject({ type: "run.failed", outputs: { result: "fine" } });
  });

  it("stop: aborts the rest of the run; running nodes are told, nothing new starts", async () => {
    const { catalog, probe } = createTestCatalog();
    const wf = workflow(
      "stopping",
      [
        { id: "slow", type: "test:delay", inputs: { ms: 500 } },
        { id: "wait", type: "test:delay", inputs: { ms: 5 } },
        { id: "bad", type: "test:fail", policy: { onError: "stop" } },
        { id: "later", type: "test:upper" },
      ],
      [
        ["wait", "value", "bad", "value"],
        ["slow", "value", "later", "text"],
      ],
    );
    const log = eventLog();
    const result = await new ExecutionEngine({ catalog }).run(wf, { onEvent: log.onEvent });
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({ code: "NODE_ERROR", message: 'node "bad" failed: boom' });
    expect(probe.aborted.has("slow")).toBe(true);
    expect(probe.finished.has("slow")).toBe(false);
    const byNode = Object.fromEntries(result.observations.map((o) => [o.nodeId, o]));
    expect(byNode.slow).toMatchObject({ status: "cancelled", error: { code: "CANCELLED" } });
    expect(byNode.later).toMatchObject({ status: "skipped", skipReason: expect.stringContaining('"bad" failed') });
    expect(log.ofType("node.skipped")).toEqual([expect.objectContaining({ nodeId: "later", causeNodeId: "bad" })]);
  });

  it("route: the error goes out on $error; its dependents run, the others are skipped; the run completes", async () => {
    const { catalog } = createTestCatalog();
    const wf = workflow(
      "routing",
      [
        { id: "bad", type: "test:fail", config: { code: "NOPE", message: "no way" }, policy: { onError: "route" } },
        { id: "handler", type: "test:collect" },
        { id: "normal", type: "test:upper" },
        { id: "out", type: "core:workflow-output", config: { name: "handled" } },
      ],
      [
        ["bad", "$error", "handler", "items"],
        ["bad", "value", "normal", "text"],
        ["handler", "items", "out", "value"],
      ],
    );
    const log = eventLog();
    const result = await new ExecutionEngine({ catalog }).run(wf, { onEvent: log.onEvent });
    expect(result.status).toBe("completed");
    const problem = { code: "NOPE", message: "no way", nodeId: "bad", nodeTitle: expect.any(String), attempt: 1 };
    expect(result.outputs).toEqual({ handled: [problem] });
    const bad = result.observations.find((o) => o.nodeId === "bad")!;
    expect(bad).toMatchObject({ status: "failed", handled: true, error: { code: "NOPE" }, outputs: { $error: problem } });
    expect(log.ofType("node.failed")).toEqual([expect.objectContaining({ nodeId: "bad", handled: true, outputs: { $error: problem } })]);
    expect(log.ofType("node.skipped")).toEqual([expect.objectContaining({ nodeId: "normal", reason: expect.stringContaining("its error went to $error") })]);
  });

  it("retries with exponential backoff, with node.retrying events, and succeeds", async () => {
    const { catalog, probe } = createTestCatalog();
    const wf = workflow("retry", [{ id: "flaky", type: "test:flaky", config: { failures: 2 }, policy: { retries: 3, retryBackoffMs: 10 } }]);
    const log = eventLog();
    const result = await new ExecutionEngine({ catalog }).run(wf, { onEvent: log.onEvent });
    expect(result.status).toBe("completed");
    expect(probe.executions.get("flaky")).toBe(3);
    expect(log.ofType("node.retrying").map((e) => [e.attempt, e.delayMs, e.error.code])).toEqual([
      [2, 10, "FLAKY"],
      [3, 20, "FLAKY"],
    ]);
    expect(log.ofType("node.started").map((e) => e.attempt)).toEqual([1, 2, 3]);
    expect(result.observations[0]).toMatchObject({ status: "completed", attempts: 3, outputs: { value: "ok" } });
    expect(result.observations[0].durationMs).toBeGreaterThanOrEqual(30);
  });

  it("announces a retry's start as it begins, not with its end (watchers see the node running again)", async () => {
    const { catalog } = createTestCatalog();
    const wf = workflow("retry", [{ id: "flaky", type: "test:flaky", config: { failures: 1, succeedAfterMs: 80 }, policy: { retries: 1, retryBackoffMs: 1 } }]);
    const seen: Array<{ type: string; attempt?: number; at: number }> = [];
    await new ExecutionEngine({ catalog }).run(wf, { onEvent: (e) => seen.push({ type: e.type, ...("attempt" in e ? { attempt: e.attempt } : {}), at: performance.now() }) });
    const retryStart = seen.find((e) => e.type === "node.started" && e.attempt === 2)!;
    const completed = seen.find((e) => e.type === "node.completed")!;
    // The second attempt sleeps 80 ms before it succeeds: its start came before that, not held back until the end.
    expect(completed.at - retryStart.at).toBeGreaterThanOrEqual(60);
  });

  it("gives up after the last retry with the last error", async () => {
    const { catalog, probe } = createTestCatalog();
    const wf = workflow("retry", [{ id: "flaky", type: "test:flaky", config: { failures: 5 }, policy: { retries: 1, retryBackoffMs: 1 } }]);
    const result = await new ExecutionEngine({ catalog }).run(wf);
    expect(probe.executions.get("flaky")).toBe(2);
    expect(result.observations[0]).toMatchObject({ status: "failed", attempts: 2, error: { code: "FLAKY", message: "attempt 2 failed" } });
  });

  it("times a node out: TIMEOUT, and the node's signal is aborted", async () => {
    const { catalog, probe } = createTestCatalog();
    const wf = workflow("timeout", [{ id: "slow", type: "test:delay", inputs: { ms: 2000 }, policy: { timeoutMs: 30 } }]);
    const result = await new ExecutionEngine({ catalog }).run(wf);
    expect(result.status).toBe("failed");
    expect(result.observations[0]).toMatchObject({ status: "failed", error: { code: "TIMEOUT", message: expect.stringContaining("30 ms") } });
    expect(probe.aborted.has("slow")).toBe(true);
    expect(probe.finished.has("slow")).toBe(false);
  });

  it("waits (within the grace period) for a timed-out node that ignores its signal before the run resolves", async () => {
    // The grace is far longer than the node (patient), or far shorter (hasty): a busy machine's late timers change neither.
    const deaf = (ms: number) => workflow("deaf", [{ id: "slow", type: "test:delay", inputs: { ms }, config: { ignoreAbort: true }, policy: { timeoutMs: 10 } }]);
    const patient = createTestCatalog();
    const waited = await new ExecutionEngine({ catalog: patient.catalog, cancelGraceMs: 30_000 }).run(deaf(80));
    expect(waited.observations[0].error?.code).toBe("TIMEOUT");
    expect(patient.probe.finished.has("slow")).toBe(true);
    const hasty = createTestCatalog();
    await new ExecutionEngine({ catalog: hasty.catalog, cancelGraceMs: 5 }).run(deaf(20_000));
    expect(hasty.probe.finished.has("slow")).toBe(false);
  });

  it("keeps a NodeFailure's code and turns other errors into NODE_ERROR", async () => {
    const { catalog } = createTestCatalog();
    const wf = workflow("errors", [
      { id: "coded", type: "test:fail", config: { code: "QUOTA_EXCEEDED", message: "too many" } },
      { id: "plain", type: "test:fail", config: { message: "plain error" } },
    ]);
    const result = await new ExecutionEngine({ catalog }).run(wf);
    expect(result.observations.map((o) => [o.nodeId, o.error])).toEqual([
      ["coded", { code: "QUOTA_EXCEEDED", message: "too many" }],
      ["plain", { code: "NODE_ERROR", message: "plain error" }],
    ]);
    expect(result.error?.details?.failedNodeIds).toEqual(["coded", "plain"]);
  });

  it("skips an untaken branch, and a node accepting partial inputs runs with the live ones", async () => {
    const { catalog } = createTestCatalog();
    const wf = workflow(
      "branch",
      [
        { id: "router", type: "test:router", inputs: { value: "hello", condition: true } },
        { id: "yes", type: "test:upper" },
        { id: "no", type: "test:upper" },
        { id: "both", type: "test:collect" },
        { id: "first", type: "test:first", inputs: { fallback: "fb" } },
        { id: "needsNo", type: "test:first" },
      ],
      [
        ["router", "yes", "yes", "text"],
        ["router", "no", "no", "text"],
        ["yes", "text", "both", "items"],
        ["no", "text", "both", "items"],
        ["no", "text", "first", "a"],
        ["no", "text", "needsNo", "fallback"],
      ],
    );
    const log = eventLog();
    const result = await new ExecutionEngine({ catalog }).run(wf, { onEvent: log.onEvent });
    expect(result.status).toBe("completed");
    const out = Object.fromEntries(result.observations.map((o) => [o.nodeId, o]));
    expect(out.yes.outputs).toEqual({ text: "HELLO" });
    expect(out.no).toMatchObject({ status: "skipped", skipReason: 'input "text" is on a branch not taken: "router" gave no "no" output' });
    expect(out.both.outputs).toEqual({ items: ["HELLO"] });
    expect(out.first.outputs).toEqual({ value: "fb" });
    expect(out.needsNo).toMatchObject({ status: "skipped", skipReason: expect.stringContaining('required input "fallback" has no value') });
    expect(log.ofType("node.skipped").map((e) => [e.nodeId, e.causeNodeId])).toEqual([
      ["no", "router"],
      ["needsNo", "no"],
    ]);
  });
});
