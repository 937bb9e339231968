import { describe, expect, it } from "vitest";
import { formatIssue, type ValidationIssue } from "@weft/types";
import { ExecutionEngine } from "./execution-engine.ts";
import { createTestCatalog, eventLog, workflow } from "./testing/test-nodes.ts";

function engine(): ExecutionEngine {
  return new ExecutionEngine({ catalog: createTestCatalog().catalog });
}

function issuesOf(doc: unknown): ValidationIssue[] {
  const result = engine().validate(doc);
  if (result.ok) throw new Error("expected the workflow to be invalid");
  return result.issues;
}

describe("ExecutionEngine.validate", () => {
  it("accepts a valid workflow and returns it with the schema's defaults", () => {
    const result = engine().validate({
      id: "ok",
      name: "ok",
      nodes: [
        { id: "a", type: "test:const", config: { value: 2 } },
        { id: "b", type: "test:add" },
      ],
      edges: [{ id: "e", source: "a", sourceHandle: "value", target: "b", targetHandle: "a" }],
    });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.workflow.nodes[1].inputs).toEqual({});
      expect(result.workflow.nodes[0].position).toEqual({ x: 0, y: 0 });
    }
  });

  it("reports every problem at once, each with the node or edge and a fix", () => {
    const issues = issuesOf({
      id: "bad",
      name: "bad",
      nodes: [
        { id: "n1", type: "test:const", config: { value: "hello" } },
        { id: "typo", type: "test:uper" },
        { id: "sum", type: "test:add" },
        { id: "upper", type: "test:upper" },
        { id: "n1", type: "test:const" },
        { id: "in", type: "core:workflow-input", config: { name: "not valid!" } },
        { id: "cfg", type: "test:join", config: { separator: 5 }, inputs: { parts: ["a"] } },
        { id: "lit", type: "test:add", inputs: { a: "three", c: 1 } },
      ],
      edges: [
        { id: "dangling", source: "ghost", sourceHandle: "value", target: "sum", targetHandle: "a" },
        { id: "badport", source: "n1", sourceHandle: "nope", target: "sum", targetHandle: "b" },
        { id: "mismatch", source: "upper", sourceHandle: "text", target: "lit", targetHandle: "b" },
        { id: "one", source: "n1", sourceHandle: "value", target: "upper", targetHandle: "text" },
        { id: "one", source: "n1", sourceHandle: "value", target: "upper", targetHandle: "text" },
      ],
    });
    const byCode = (code: string) => issues.filter((i) => i.code === code);
    expect(byCode("UNKNOWN_NODE_TYPE")).toEqual([expect.objectContaining({ nodeId: "typo", hint: expect.stringContaining('"test:upper"') })]);
    expect(byCode("DUPLICATE_ID")).toHaveLength(2);
    expect(byCode("DUPLICATE_ID")).toContainEqual(expect.objectContaining({ nodeId: "n1" }));
    expect(byCode("DUPLICATE_ID")).toContainEqual(expect.objectContaining({ edgeId: "one", message: 'two edges have the id "one"' }));
    expect(byCode("DANGLING_EDGE")).toEqual([expect.objectContaining({ edgeId: "dangling", message: expect.stringContaining('"ghost"') })]);
    const unknownPorts = byCode("UNKNOWN_PORT");
    expect(unknownPorts).toContainEqual(expect.objectContaining({ edgeId: "badport", nodeId: "n1", hint: expect.stringContaining('"value"') }));
    expect(unknownPorts).toContainEqual(expect.objectContaining({ nodeId: "lit", message: expect.stringContaining('"c"'), hint: expect.stringContaining('"a", "b"') }));
    const mismatches = byCode("PORT_TYPE_MISMATCH");
    expect(mismatches).toContainEqual(expect.objectContaining({ edgeId: "mismatch", nodeId: "lit", message: expect.stringContaining("a string output cannot feed a number input") }));
    expect(mismatches).toContainEqual(expect.objectContaining({ nodeId: "lit", message: expect.stringContaining('literal input "a"') }));
    expect(byCode("DUPLICATE_INPUT")).toEqual([expect.objectContaining({ nodeId: "upper", message: expect.stringContaining('"text"') })]);
    // The only edge into sum.a is dangling, so sum.a has nothing to fill it either.
    expect(byCode("MISSING_REQUIRED_INPUT")).toEqual([expect.objectContaining({ nodeId: "sum", message: expect.stringContaining('"a"') })]);
    expect(byCode("INVALID_INTERFACE")).toEqual([expect.objectContaining({ nodeId: "in" })]);
    expect(byCode("INVALID_CONFIG")).toEqual([expect.objectContaining({ nodeId: "cfg", message: expect.stringContaining('"separator"') })]);
    for (const issue of issues) {
      expect(issue.hint.length).toBeGreaterThan(10);
      expect(formatIssue(issue)).toContain("fix:");
    }
  });

  it("reports missing required inputs: no edge, no literal and no default", () => {
    const issues = issuesOf({
      id: "w",
      name: "w",
      nodes: [
        { id: "needs", type: "test:add" },
        { id: "literal", type: "test:add", inputs: { a: 1 } },
        { id: "router", type: "test:router", inputs: { value: 1 } },
      ],
    });
    expect(issues.map((i) => [i.code, i.nodeId, i.message.match(/"(\w+)"/)?.[1]])).toEqual([
      ["MISSING_REQUIRED_INPUT", "needs", "a"],
      ["MISSING_REQUIRED_INPUT", "router", "condition"],
    ]);
  });

  it("names the nodes of a cycle in edge order", () => {
    const issues = issuesOf({
      id: "loop",
      name: "loop",
      nodes: [
        { id: "start", type: "test:const", config: { value: 1 } },
        { id: "a", type: "test:add" },
        { id: "b", type: "test:add" },
        { id: "c", type: "test:add" },
        { id: "after", type: "test:add" },
        { id: "self", type: "test:add", inputs: { a: 1 } },
      ],
      edges: [
        { id: "e0", source: "start", sourceHandle: "value", target: "a", targetHandle: "b" },
        { id: "e1", source: "a", sourceHandle: "sum", target: "b", targetHandle: "a" },
        { id: "e2", source: "b", sourceHandle: "sum", target: "c", targetHandle: "a" },
        { id: "e3", source: "c", sourceHandle: "sum", target: "a", targetHandle: "a" },
        { id: "e4", source: "c", sourceHandle: "sum", target: "after", targetHandle: "a" },
        { id: "e5", source: "self", sourceHandle: "sum", target: "self", targetHandle: "b" },
      ],
    });
    const cycles = issues.filter((i) => i.code === "CYCLE");
    expect(cycles.map((c) => c.nodeIds)).toEqual([["a", "b", "c"], ["self"]]);
    expect(cycles[0].message).toContain('"a" → "b" → "c" → "a"');
    // "after" is behind the cycle, not in it.
    expect(cycles.flatMap((c) => c.nodeIds)).not.toContain("after");
  });

  it("reports schema problems with JSON paths alongside the graph problems of the well-formed parts", () => {
    const issues = issuesOf({
      id: "",
      name: "schema",
      nodes: [
        { id: "has space", type: "test:const" },
        { id: "x", type: "Not-A-Type" },
        { id: "ok", type: "test:nope" },
        { id: "broken", type: "test:add", position: { x: "left" } },
      ],
      edges: [{ id: "e", source: "broken", sourceHandle: "sum", target: "ok", targetHandle: "a" }, { id: "f" }],
    });
    const schema = issues.filter((i) => i.code === "SCHEMA");
    expect(schema.map((i) => i.path)).toEqual([
      ["id"],
      ["nodes", 0, "id"],
      ["nodes", 1, "type"],
      ["nodes", 3, "position", "x"],
      ["nodes", 3, "position", "y"],
      ["edges", 1, "source"],
      ["edges", 1, "sourceHandle"],
      ["edges", 1, "target"],
      ["edges", 1, "targetHandle"],
    ]);
    expect(schema[3]).toMatchObject({ nodeId: "broken", hint: expect.stringContaining("number") });
    expect(issues).toContainEqual(expect.objectContaining({ code: "UNKNOWN_NODE_TYPE", nodeId: "ok" }));
    // The edge from the malformed node is not called dangling: that node exists, it is just malformed.
    expect(issues.filter((i) => i.code === "DANGLING_EDGE")).toEqual([]);
  });

  it("refuses what is not a workflow document at all", () => {
    expect(issuesOf([1, 2])).toEqual([expect.objectContaining({ code: "SCHEMA", path: [], message: expect.stringContaining("an array") })]);
    expect(issuesOf({ id: "w", name: "w", nodes: "none" })).toContainEqual(expect.objectContaining({ code: "SCHEMA", path: ["nodes"] }));
  });

  it("knows the $error output only on nodes whose policy routes errors", () => {
    const doc = (onError: string) => ({
      id: "w",
      name: "w",
      nodes: [
        { id: "f", type: "test:fail", policy: { onError } },
        { id: "log", type: "test:upper" },
      ],
      edges: [{ id: "e", source: "f", sourceHandle: "$error", target: "log", targetHandle: "text" }],
    });
    const issues = issuesOf(doc("continue"));
    expect(issues).toEqual([expect.objectContaining({ code: "UNKNOWN_PORT", edgeId: "e", hint: expect.stringContaining('policy.onError to "route"') })]);
    // json ($error) may feed a string input: json is only known at run time.
    expect(engine().validate(doc("route")).ok).toBe(true);
  });

  it("uses a dynamic-ports node's own ports", () => {
    const doc = (ports: unknown) => ({
      id: "w",
      name: "w",
      nodes: [
        { id: "c", type: "test:const", config: { value: "x" } },
        { id: "skill", type: "core:skill", config: { workflowId: "s" }, ports },
      ],
      edges: [{ id: "e", source: "c", sourceHandle: "value", target: "skill", targetHandle: "text" }],
    });
    expect(engine().validate(doc({ inputs: [{ id: "text", type: "string", required: true }], outputs: [] })).ok).toBe(true);
    expect(issuesOf(doc({ inputs: [{ id: "other", type: "string" }], outputs: [] }))).toEqual([
      expect.objectContaining({ code: "UNKNOWN_PORT", nodeId: "skill", hint: expect.stringContaining('"other"') }),
    ]);
    expect(
      issuesOf(
        doc({
          inputs: [
            { id: "text", type: "string" },
            { id: "n", type: "number", required: true },
          ],
          outputs: [],
        }),
      ),
    ).toEqual([expect.objectContaining({ code: "MISSING_REQUIRED_INPUT", nodeId: "skill" })]);
  });

  it("checks interface nodes: typed value ports, duplicate names, defaults of the wrong type", () => {
    const issues = issuesOf({
      id: "w",
      name: "w",
      nodes: [
        { id: "in1", type: "core:workflow-input", config: { name: "text", portType: "string" } },
        { id: "in2", type: "core:workflow-input", config: { name: "text", portType: "string" } },
        { id: "in3", type: "core:workflow-input", config: { name: "count", portType: "number", default: "three" } },
        { id: "add", type: "test:add" },
      ],
      edges: [{ id: "e", source: "in1", sourceHandle: "value", target: "add", targetHandle: "a" }],
    });
    expect(issues.map((i) => [i.code, i.nodeId])).toEqual([
      ["INVALID_INTERFACE", "in3"],
      ["PORT_TYPE_MISMATCH", "add"],
      ["INVALID_INTERFACE", "in2"],
    ]);
  });

  it("validates a 100,000-node chain (no recursion, no quadratic step)", () => {
    const n = 100_000;
    const nodes = Array.from({ length: n }, (_, i) => (i === 0 ? { id: "n0", type: "test:const", config: { value: 0 } } : { id: `n${i}`, type: "test:add" }));
    const edges = Array.from({ length: n - 1 }, (_, i) => ({ id: `e${i}`, source: `n${i}`, sourceHandle: i === 0 ? "value" : "sum", target: `n${i + 1}`, targetHandle: "a" }));
    expect(engine().validate({ id: "long", name: "long", nodes, edges }).ok).toBe(true);
    edges.push({ id: "back", source: `n${n - 1}`, sourceHandle: "sum", target: "n1", targetHandle: "b" });
    const cycle = issuesOf({ id: "long", name: "long", nodes, edges }).find((i) => i.code === "CYCLE");
    expect(cycle?.nodeIds).toHaveLength(n - 1);
    // ~2 s on an idle machine; a quadratic step would take hours. Generous: a busy 2-core machine took 52 s.
  }, 300_000);

  it("run() of an invalid graph fails with INVALID_WORKFLOW and every issue, without running anything", async () => {
    const { catalog, probe } = createTestCatalog();
    const log = eventLog();
    const wf = workflow("w", [
      { id: "c", type: "test:const", config: { value: 1 } },
      { id: "x", type: "test:unknown" },
      { id: "u", type: "test:upper" },
    ]);
    const result = await new ExecutionEngine({ catalog }).run(wf, { onEvent: log.onEvent });
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("INVALID_WORKFLOW");
    const issues = result.error?.details?.issues as ValidationIssue[];
    expect(issues.map((i) => i.code)).toEqual(["UNKNOWN_NODE_TYPE", "MISSING_REQUIRED_INPUT"]);
    expect(probe.executions.size).toBe(0);
    expect(log.events.map((e) => e.type)).toEqual(["run.started", "run.failed"]);
  });

  it("run() names the problems of a document that is not shaped like a workflow", async () => {
    const result = await engine().run({ id: "w", nodes: [{ id: "a" }] } as never);
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("INVALID_WORKFLOW");
    expect((result.error?.details?.issues as ValidationIssue[]).map((i) => i.path?.join("."))).toContain("nodes.0.type");
  });
});
