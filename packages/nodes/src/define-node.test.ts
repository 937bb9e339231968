import { describe, expect, it } from "vitest";
import { NodeFailure, type NodeContext, type NodeValues } from "@weft/types";
import { defineNode } from "./define-node.ts";
import { expectFailure, runNode, runNodeFull, testContext } from "./testing/harness.ts";

const echo = defineNode(
  {
    type: "test:echo",
    title: "Echo",
    inputs: [
      { id: "text", type: "string", required: true },
      { id: "count", type: "integer", default: 2, min: 1, max: 5 },
      { id: "tags", type: "string", multi: true },
      { id: "data", type: "json" },
    ],
    outputs: [{ id: "seen", type: "json" }],
    config: [
      { id: "mode", kind: "select", options: ["a", "b"], default: "a" },
      { id: "name", kind: "text", required: true },
      { id: "limit", kind: "integer", default: 3, min: 0 },
    ],
  },
  (inputs, ctx) => ({ seen: { inputs, config: ctx.config, runId: ctx.runId } as NodeValues }),
);

describe("defineNode input and config checks", () => {
  it("applies port and config defaults and normalises multi inputs", async () => {
    const out = await runNode(echo, { text: "hi", tags: "solo", data: null }, { name: "n" });
    expect(out.seen).toEqual({
      inputs: { text: "hi", count: 2, tags: ["solo"], data: null },
      config: { mode: "a", name: "n", limit: 3 },
      runId: "run-test",
    });
  });

  it("treats null as absent on typed ports, and an unconnected multi input as an empty list", async () => {
    const out = await runNode(echo, { text: "hi", count: null }, { name: "n" });
    expect((out.seen as { inputs: NodeValues }).inputs).toEqual({ text: "hi", count: 2, tags: [] });
  });

  it("refuses a missing required input, naming the port and the fix", async () => {
    const failure = await expectFailure(runNode(echo, {}, { name: "n" }), "INVALID_INPUT");
    expect(failure.message).toBe('input "text" of test:echo is required: connect an edge to it or set a value.');
  });

  it("refuses a value of the wrong type, saying what came", async () => {
    const failure = await expectFailure(runNode(echo, { text: 5 }, { name: "n" }), "INVALID_INPUT");
    expect(failure.message).toBe('input "text" of test:echo expects a string, got the number 5.');
    expect(failure.details).toEqual({ port: "text", expected: "string" });
  });

  it("checks every item of a multi input and the min/max of a port", async () => {
    const item = await expectFailure(runNode(echo, { text: "x", tags: ["a", 3] }, { name: "n" }), "INVALID_INPUT");
    expect(item.message).toContain("item 1 is the number 3");
    const range = await expectFailure(runNode(echo, { text: "x", count: 9 }, { name: "n" }), "INVALID_INPUT");
    expect(range.message).toBe('input "count" of test:echo must be at most 5, got 9.');
  });

  it("refuses missing or ill-typed settings", async () => {
    expect((await expectFailure(runNode(echo, { text: "x" }, {}), "INVALID_CONFIG")).message).toBe('Setting "name" of test:echo is required: set it in the node\'s settings.');
    expect((await expectFailure(runNode(echo, { text: "x" }, { name: "n", mode: "c" }), "INVALID_CONFIG")).message).toBe('Setting "mode" of test:echo must be one of "a", "b", got a string ("c").');
    expect((await expectFailure(runNode(echo, { text: "x" }, { name: "n", limit: 1.5 }), "INVALID_CONFIG")).message).toContain("must be an integer");
    expect((await expectFailure(runNode(echo, { text: "x" }, { name: "n", limit: -1 }), "INVALID_CONFIG")).message).toContain("must be at least 0");
  });

  it("passes a complete config and its context through as they are, and fills defaults into a copy", () => {
    let seen: NodeContext | undefined;
    const probe = defineNode(echo.spec, (_inputs, ctx) => {
      seen = ctx;
      return {};
    });
    const complete = testContext({ config: { mode: "b", name: "n", limit: 1 } });
    probe.execute({ text: "x" }, complete);
    expect(seen).toBe(complete);

    const partialConfig = { name: "n", mode: null };
    const partial = testContext({ config: partialConfig });
    probe.execute({ text: "x" }, partial);
    expect(seen).not.toBe(partial);
    expect(seen?.config).toEqual({ mode: "a", name: "n", limit: 3 });
    expect(seen?.runId).toBe(partial.runId);
    expect(partialConfig).toEqual({ name: "n", mode: null });
  });

  it("reports bad input as a rejected promise, never a synchronous throw", () => {
    const result = echo.execute({}, testContext({ config: { name: "n" } }));
    expect(result).toBeInstanceOf(Promise);
    return expect(result).rejects.toBeInstanceOf(NodeFailure);
  });

  it("keeps an async generator streaming, with the checked inputs", async () => {
    const counter = defineNode({ type: "test:count", title: "Count", inputs: [{ id: "n", type: "integer", default: 3 }], outputs: [{ id: "total", type: "integer" }] }, async function* (inputs) {
      let total = 0;
      for (let i = 1; i <= (inputs.n as number); i++) {
        total += i;
        yield i;
      }
      return { total };
    });
    expect(await runNodeFull(counter)).toEqual({ outputs: { total: 6 }, chunks: [1, 2, 3] });
  });

  it("lets the node see the rest of the runtime's context, including prototype methods", async () => {
    class RuntimeContext {
      runId = "r-proto";
      nodeId = "n";
      invocationId = "i";
      config = { name: "from-runtime" };
      signal = new AbortController().signal;
      log = testContext().log;
      services = {};
      runSubworkflow(id: string): never {
        throw new Error(`no ${id} for ${this.runId}`);
      }
    }
    const probe = defineNode({ type: "test:probe", title: "Probe", config: [{ id: "name", kind: "text" }] }, (_inputs, ctx) => {
      expect(() => ctx.runSubworkflow("w", {})).toThrow("no w for r-proto");
      return { name: ctx.config.name, runId: ctx.runId };
    });
    expect(await probe.execute({}, new RuntimeContext())).toEqual({ name: "from-runtime", runId: "r-proto" });
  });
});
