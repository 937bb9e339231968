import { describe, expect, it } from "vitest";
import { silentLogger } from "@weft/types";
import { ExecutionEngine } from "./execution-engine.ts";
import { createTestCatalog, eventLog, workflow } from "./testing/test-nodes.ts";

describe("ExecutionEngine scheduling", () => {
  it("runs a 100,000-node chain without a stack overflow", async () => {
    const { catalog } = createTestCatalog();
    const n = 100_000;
    const nodes = [{ id: "n0", type: "test:const", config: { value: 0 } }, ...Array.from({ length: n - 1 }, (_, i) => ({ id: `n${i + 1}`, type: "test:add" }))];
    const edges = Array.from({ length: n - 1 }, (_, i) => [`n${i}`, i === 0 ? "value" : "sum", `n${i + 1}`, "a"] as [string, string, string, string]);
    const log = eventLog();
    const result = await new ExecutionEngine({ catalog }).run(workflow("chain", nodes, edges), { onEvent: log.onEvent });
    expect(result.status).toBe("completed");
    expect(result.observations).toHaveLength(n);
    expect(result.observations[n - 1]).toMatchObject({ nodeId: `n${n - 1}`, outputs: { sum: n - 1 } });
    // Synchronous nodes: one node.completed each (no node.started), between run.started and run.completed.
    expect(log.events).toHaveLength(n + 2);
    // Generous: a busy 2-core machine is many times slower than an idle one.
  }, 300_000);

  it("runs independent branches at the same time: both started before either finished", async () => {
    const { catalog, probe } = createTestCatalog();
    const wf = workflow(
      "parallel",
      [
        { id: "left", type: "test:delay", inputs: { ms: 40, value: "L" } },
        { id: "right", type: "test:delay", inputs: { ms: 40, value: "R" } },
        { id: "join", type: "test:join" },
      ],
      [
        ["left", "value", "join", "parts"],
        ["right", "value", "join", "parts"],
      ],
    );
    const log = eventLog();
    const result = await new ExecutionEngine({ catalog }).run(wf, { onEvent: log.onEvent });
    expect(result.status).toBe("completed");
    const order = log.events.filter((e) => e.type === "node.started" || e.type === "node.completed").map((e) => `${e.type} ${"nodeId" in e ? e.nodeId : ""}`);
    const firstCompletion = order.findIndex((e) => e.startsWith("node.completed"));
    expect(order.indexOf("node.started left")).toBeLessThan(firstCompletion);
    expect(order.indexOf("node.started right")).toBeLessThan(firstCompletion);
    expect(probe.maxConcurrent).toBe(2);
    expect(result.observations.find((o) => o.nodeId === "join")?.outputs).toEqual({ text: "L,R" });
  });

  it("bounds how many asynchronous nodes run at once", async () => {
    const { catalog, probe } = createTestCatalog();
    const nodes = Array.from({ length: 6 }, (_, i) => ({ id: `d${i}`, type: "test:delay", inputs: { ms: 15 } }));
    const result = await new ExecutionEngine({ catalog, concurrency: 2 }).run(workflow("bounded", nodes));
    expect(result.status).toBe("completed");
    expect(probe.finished.size).toBe(6);
    expect(probe.maxConcurrent).toBe(2);
  });

  it("resolves inputs: literal < edge value, multi inputs in edge order, port defaults", async () => {
    const { catalog } = createTestCatalog();
    const wf = workflow(
      "inputs",
      [
        { id: "one", type: "test:const", config: { value: 1 } },
        { id: "x", type: "test:const", config: { value: "x" } },
        { id: "y", type: "test:const", config: { value: "y" } },
        { id: "z", type: "test:const", config: { value: "z" } },
        { id: "overridden", type: "test:add", inputs: { a: 100, b: 5 } },
        { id: "defaulted", type: "test:add", inputs: { a: 7 } },
        { id: "joined", type: "test:join", config: { separator: "-" }, inputs: { parts: ["ignored"] } },
        { id: "literalOnly", type: "test:join", inputs: { parts: "single" } },
      ],
      [
        ["one", "value", "overridden", "a"],
        ["z", "value", "joined", "parts"],
        ["x", "value", "joined", "parts"],
        ["y", "value", "joined", "parts"],
      ],
    );
    const result = await new ExecutionEngine({ catalog }).run(wf);
    const out = (id: string) => result.observations.find((o) => o.nodeId === id)?.outputs;
    expect(out("overridden")).toEqual({ sum: 6 });
    expect(out("defaulted")).toEqual({ sum: 8 });
    expect(out("joined")).toEqual({ text: "z-x-y" });
    expect(out("literalOnly")).toEqual({ text: "single" });
  });

  it("emits every step in order with seq from 0, and one observation per invocation", async () => {
    const { catalog } = createTestCatalog();
    const wf = workflow(
      "events",
      [
        { id: "c", type: "test:const", config: { value: 2 } },
        { id: "add", type: "test:add" },
        { id: "slow", type: "test:delay", inputs: { ms: 5 } },
      ],
      [
        ["c", "value", "add", "a"],
        ["add", "sum", "slow", "value"],
      ],
    );
    const log = eventLog();
    const result = await new ExecutionEngine({ catalog }).run(wf, { onEvent: log.onEvent, runId: "run-1" });
    expect(log.events.map((e) => e.seq)).toEqual(log.events.map((_, i) => i));
    expect(log.events.every((e) => e.streamId === "run-1")).toBe(true);
    expect(log.events.map((e) => `${e.type}${"nodeId" in e ? " " + e.nodeId : ""}`)).toEqual([
      "run.started",
      "node.completed c",
      "node.completed add",
      "node.started slow",
      "node.completed slow",
      "run.completed",
    ]);
    // A node that completed within its call is announced once, with what its start would have said; the asynchronous one was seen running.
    expect(log.ofType("node.completed").map((e) => [e.nodeId, e.nodeType, e.inputs])).toEqual([
      ["c", "test:const", {}],
      ["add", "test:add", { a: 2, b: 1 }],
      ["slow", undefined, undefined],
    ]);
    expect(log.ofType("node.started")).toMatchObject([{ nodeId: "slow", nodeType: "test:delay", inputs: { value: 3, ms: 5 }, attempt: 1 }]);
    expect(result.observations.map((o) => [o.nodeId, o.status, o.inputs, o.outputs])).toEqual([
      ["c", "completed", {}, { value: 2 }],
      ["add", "completed", { a: 2, b: 1 }, { sum: 3 }],
      ["slow", "completed", { value: 3, ms: 5 }, { value: 3 }],
    ]);
    const slow = result.observations[2];
    expect(slow.durationMs).toBeGreaterThanOrEqual(4);
    expect(new Set(result.observations.map((o) => o.invocationId)).size).toBe(3);
    expect(result.runId).toBe("run-1");
  });

  it("streams chunks as node.chunk events, keeps them in the observation, and passes on the final value", async () => {
    const { catalog } = createTestCatalog();
    const wf = workflow(
      "stream",
      [
        { id: "s", type: "test:stream", inputs: { text: "to be or not" } },
        { id: "u", type: "test:upper" },
      ],
      [["s", "text", "u", "text"]],
    );
    const log = eventLog();
    const result = await new ExecutionEngine({ catalog }).run(wf, { onEvent: log.onEvent });
    const chunks = log.ofType("node.chunk");
    expect(chunks.map((c) => [c.nodeId, c.index, c.chunk])).toEqual([
      ["s", 0, "to"],
      ["s", 1, "be"],
      ["s", 2, "or"],
      ["s", 3, "not"],
    ]);
    const started = log.ofType("node.started").find((e) => e.nodeId === "s")!;
    expect(chunks.every((c) => c.invocationId === started.invocationId)).toBe(true);
    const completedAt = log.events.findIndex((e) => e.type === "node.completed" && e.nodeId === "s");
    expect(chunks.every((c) => c.seq < log.events[completedAt].seq)).toBe(true);
    expect(result.observations[0].chunks).toEqual(["to", "be", "or", "not"]);
    expect(result.observations[1].outputs).toEqual({ text: "TO+BE+OR+NOT" });
  });

  it("fails a node that returns something other than outputs", async () => {
    const { catalog } = createTestCatalog();
    const result = await new ExecutionEngine({ catalog }).run(workflow("w", [{ id: "n", type: "test:nothing" }]));
    expect(result.observations[0].error).toMatchObject({ code: "INVALID_OUTPUT", message: expect.stringContaining("returned nothing") });
  });

  it("goes on when an event listener throws", async () => {
    const { catalog } = createTestCatalog();
    const seen: string[] = [];
    const result = await new ExecutionEngine({ catalog, logger: silentLogger }).run(workflow("w", [{ id: "c", type: "test:const", config: { value: 1 } }]), {
      onEvent: (event) => {
        seen.push(event.type);
        throw new Error("listener bug");
      },
    });
    expect(result.status).toBe("completed");
    expect(seen).toEqual(["run.started", "node.completed", "run.completed"]);
  });

  it("runs an empty workflow", async () => {
    const result = await new ExecutionEngine({ catalog: createTestCatalog().catalog }).run(workflow("empty", []));
    expect(result).toMatchObject({ status: "completed", outputs: {}, observations: [] });
  });
});
