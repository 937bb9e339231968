import { describe, expect, it } from "vitest";
import { WorkflowSchema } from "@weft/types";
import type { GraphDiff } from "@weft/types";
import { sessionHash, sessionIdFromHash } from "../../shared/ui/route.ts";
import { targetFromFields } from "./builder-target.ts";
import { diffFlowElements, graphDiffView, markCounts } from "./graph-diff-view.ts";
import { diffableJson, diffHunks, diffStats } from "../../shared/lib/text-diff.ts";

const node = (id: string, template = "x") => ({ id, type: "core:text-template", position: { x: 0, y: 0 }, config: { template }, inputs: {} });
const before = WorkflowSchema.parse({
  id: "notes",
  name: "Notes",
  nodes: [node("a"), node("b"), node("gone")],
  edges: [
    { id: "e1", source: "a", sourceHandle: "text", target: "b", targetHandle: "values" },
    { id: "e2", source: "b", sourceHandle: "text", target: "gone", targetHandle: "values" },
  ],
});
const after = WorkflowSchema.parse({
  ...before,
  nodes: [node("a"), node("b", "changed"), node("new")],
  edges: [before.edges[0], { id: "e3", source: "b", sourceHandle: "text", target: "new", targetHandle: "values" }],
});
const graph: GraphDiff = {
  nodes: { added: [after.nodes[2]], removed: [before.nodes[2]], changed: [{ id: "b", before: before.nodes[1], after: after.nodes[1], fields: ["config"], positionOnly: false }], unchanged: 1 },
  edges: { added: [after.edges[1]], removed: [before.edges[1]], changed: [], unchanged: 1 },
  workflowFields: [],
};

describe("the preview canvas model", () => {
  it("draws the staged workflow plus what it removes, each element marked by what the change does to it", () => {
    const view = graphDiffView({ type: "workflow", before, after, graph });
    expect(view).not.toBeNull();
    const { nodes, edges } = diffFlowElements(view!);
    expect(nodes.map((n) => [n.id, n.class])).toEqual([
      ["a", undefined],
      ["b", "diff-changed"],
      ["new", "diff-added"],
      ["gone", "diff-removed"],
    ]);
    expect(edges.map((e) => [e.id, e.class])).toEqual([
      ["e1", undefined],
      ["e3", "diff-added"],
      ["e2", "diff-removed"],
    ]);
    expect(markCounts(view!)).toEqual({ added: 2, removed: 2, changed: 1, moved: 0 });
  });

  it("has no canvas for other objects, and draws a deleted workflow from its stored version", () => {
    expect(graphDiffView({ type: "agent", before: {}, after: {}, graph: undefined })).toBeNull();
    const deleted = graphDiffView({
      type: "workflow",
      before,
      after: null,
      graph: { ...graph, nodes: { added: [], removed: before.nodes, changed: [], unchanged: 0 }, edges: { added: [], removed: before.edges, changed: [], unchanged: 0 } },
    });
    expect([...deleted!.nodeMarks.values()]).toEqual(["removed", "removed", "removed"]);
    expect(deleted!.doc.nodes).toHaveLength(3);
  });
});

describe("the JSON diff", () => {
  it("compares documents with sorted keys, so key order is not a change", () => {
    expect(diffHunks(diffableJson({ b: 1, a: 2 }), diffableJson({ a: 2, b: 1 }))).toEqual([]);
    expect(diffableJson(null)).toBe("");
  });

  it("numbers the lines of each side and counts what was added and removed", () => {
    const hunks = diffHunks(diffableJson(before.nodes[1]), diffableJson(after.nodes[1]), 1);
    expect(hunks).toHaveLength(1);
    const changed = hunks[0].lines.filter((l) => l.kind !== "context");
    expect(changed).toEqual([
      { kind: "remove", text: '    "template": "x"', oldNo: 3 },
      { kind: "add", text: '    "template": "changed"', newNo: 3 },
    ]);
    expect(diffStats(hunks)).toEqual({ added: 1, removed: 1 });
    expect(diffStats(diffHunks("", "one\ntwo\n"))).toEqual({ added: 2, removed: 0 });
  });
});

describe("targets", () => {
  it("builds a target from the picker's fields or says what is missing", () => {
    expect(targetFromFields("node", "notes", "fill")).toEqual({ ok: true, target: { type: "node", workflowId: "notes", nodeId: "fill" } });
    expect(targetFromFields("node", "notes", " ")).toMatchObject({ ok: false, reason: "Choose a node of the workflow." });
    expect(targetFromFields("asset", "docs/a.md", "")).toMatchObject({ ok: false });
    expect(targetFromFields("asset", "@project/docs/a.md", "")).toEqual({ ok: true, target: { type: "asset", path: "@project/docs/a.md" } });
  });

  it("keeps the session in the location hash", () => {
    expect(sessionIdFromHash(sessionHash("bs_1/2"))).toBe("bs_1/2");
    expect(sessionIdFromHash("#/builder")).toBeNull();
    expect(sessionIdFromHash("#/scenes/x")).toBeNull();
  });
});
