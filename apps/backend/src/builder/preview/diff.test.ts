import { describe, expect, it } from "vitest";
import { graphDiff, jsonDiff, WorkflowSchema, type WorkflowInput } from "@weft/types";

const wf = (input: Partial<WorkflowInput>) =>
  WorkflowSchema.parse({
    id: "w",
    name: "W",
    nodes: [
      { id: "a", type: "core:const-text", config: { value: "x" } },
      { id: "b", type: "core:text-template", config: { template: "{{0}}" } },
    ],
    edges: [{ id: "e1", source: "a", sourceHandle: "value", target: "b", targetHandle: "values" }],
    ...input,
  });

describe("preview diffs", () => {
  it("compares id-keyed arrays by id, so reordering is no change and edits name the element", () => {
    const before = wf({});
    const after = wf({
      nodes: [
        { id: "b", type: "core:text-template", config: { template: "<{{0}}>" } },
        { id: "a", type: "core:const-text", config: { value: "x" } },
      ],
    });
    expect(jsonDiff(before, after)).toEqual([{ op: "replace", path: "nodes[id=b].config.template", before: "{{0}}", after: "<{{0}}>" }]);
    expect(jsonDiff({ tags: ["a", "b"] }, { tags: ["a"] })).toEqual([{ op: "remove", path: "tags[1]", before: "b" }]);
    expect(jsonDiff({ "odd key": 1 }, { "odd key": 2 })).toEqual([{ op: "replace", path: '["odd key"]', before: 1, after: 2 }]);
  });

  it("lists added, removed and changed nodes and edges, telling a move from an edit", () => {
    const before = wf({});
    const after = wf({
      nodes: [
        { id: "a", type: "core:const-text", config: { value: "x" }, position: { x: 40, y: 0 } },
        { id: "c", type: "core:text-transform", config: {} },
      ],
      edges: [{ id: "e2", source: "a", sourceHandle: "value", target: "c", targetHandle: "text" }],
      name: "Renamed",
    });
    const diff = graphDiff(before, after);
    expect(diff.nodes.added.map((n) => n.id)).toEqual(["c"]);
    expect(diff.nodes.removed.map((n) => n.id)).toEqual(["b"]);
    expect(diff.nodes.changed).toEqual([expect.objectContaining({ id: "a", fields: ["position"], positionOnly: true })]);
    expect(diff.edges.added.map((e) => e.id)).toEqual(["e2"]);
    expect(diff.edges.removed.map((e) => e.id)).toEqual(["e1"]);
    expect(diff.workflowFields).toEqual(["name"]);
    expect(graphDiff(null, after).nodes.added).toHaveLength(2);
    expect(graphDiff(before, null).edges.removed).toHaveLength(1);
  });
});
