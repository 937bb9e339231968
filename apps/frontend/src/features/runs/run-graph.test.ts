import { describe, expect, it } from "vitest";
import { WorkflowSchema, type Observation } from "@weft/types";
import { sameGraph, workflowFromObservations } from "./run-graph.ts";

const base = WorkflowSchema.parse({
  id: "wf",
  name: "Wf",
  nodes: [
    { id: "a", type: "core:text-template", position: { x: 0, y: 0 }, config: { template: "Hi {{0}}" } },
    { id: "b", type: "core:workflow-output", position: { x: 300, y: 0 }, config: { name: "text" } },
  ],
  edges: [{ id: "e1", source: "a", sourceHandle: "text", target: "b", targetHandle: "value" }],
});

describe("sameGraph", () => {
  it("ignores where nodes sit and how they are drawn", () => {
    const moved = { ...base, nodes: base.nodes.map((n) => ({ ...n, position: { x: n.position.x + 50, y: 90 }, ui: { collapsed: true } })) };
    expect(sameGraph(base, moved)).toBe(true);
  });

  it("sees a changed setting, a new node and a removed edge", () => {
    const [a, b] = base.nodes;
    expect(sameGraph(base, { ...base, nodes: [{ ...a, config: { template: "Bye {{0}}" } }, b] })).toBe(false);
    expect(sameGraph(base, { ...base, nodes: [...base.nodes, { ...a, id: "c" }] })).toBe(false);
    expect(sameGraph(base, { ...base, edges: [] })).toBe(false);
  });
});

describe("workflowFromObservations", () => {
  const observation = (nodeId: string, nodeType: string, startedAt: number): Observation => ({
    runId: "r1",
    nodeId,
    invocationId: `${nodeId}#${startedAt}`,
    nodeType,
    status: "completed",
    inputs: {},
    outputs: {},
    chunks: [],
    startedAt,
    durationMs: 1,
    cached: false,
    attempts: 1,
  });

  it("lays out each observed node once, in the order they started", () => {
    const wf = workflowFromObservations("single:core:math", [observation("b", "core:llm", 20), observation("a", "core:math", 10), observation("a", "core:math", 30)]);
    expect(wf).toMatchObject({ id: "single:core:math", name: "single:core:math", edges: [] });
    expect(wf.nodes.map((n) => [n.id, n.type, n.position.x])).toEqual([
      ["a", "core:math", 0],
      ["b", "core:llm", 300],
    ]);
  });

  it("gives each node the inputs of its first invocation, so an agent's tool call shows what it was given", () => {
    const call = { ...observation("math", "core:math", 10), inputs: { a: 6, b: 7 } };
    const wf = workflowFromObservations("single:core:math", [call, { ...observation("math", "core:math", 20), inputs: { a: 1, b: 2 } }]);
    expect(wf.nodes[0].inputs).toEqual({ a: 6, b: 7 });
  });
});
