import { WorkflowSchema, type Workflow } from "@weft/types";
import type { GraphDiff, ObjectPreview } from "@weft/types";
import { toFlowEdge, toFlowNode, type FlowEdge, type FlowNode } from "../editor/index.ts";

/** How the preview canvas marks a node or edge: what the staged change does to it. */
export type DiffMark = "added" | "removed" | "changed" | "moved";

export interface GraphDiffView {
  /** The staged workflow plus what it removes, so removed nodes and edges can be drawn (struck out). */
  doc: Workflow;
  nodeMarks: ReadonlyMap<string, DiffMark>;
  edgeMarks: ReadonlyMap<string, DiffMark>;
}

const asWorkflow = (value: unknown): Workflow | null => {
  const parsed = WorkflowSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
};

/** The canvas model of a workflow's preview, or null when the object is not a workflow with a graph diff. */
export function graphDiffView(object: Pick<ObjectPreview, "type" | "before" | "after" | "graph">): GraphDiffView | null {
  if (object.type !== "workflow" || !object.graph) return null;
  const base = asWorkflow(object.after) ?? asWorkflow(object.before);
  if (!base) return null;
  return mergeGraph(base, object.graph);
}

export function mergeGraph(base: Workflow, graph: GraphDiff): GraphDiffView {
  const nodeMarks = new Map<string, DiffMark>();
  const edgeMarks = new Map<string, DiffMark>();
  for (const n of graph.nodes.added) nodeMarks.set(n.id, "added");
  for (const n of graph.nodes.removed) nodeMarks.set(n.id, "removed");
  for (const c of graph.nodes.changed) nodeMarks.set(c.id, c.positionOnly ? "moved" : "changed");
  for (const e of graph.edges.added) edgeMarks.set(e.id, "added");
  for (const e of graph.edges.removed) edgeMarks.set(e.id, "removed");
  for (const c of graph.edges.changed) edgeMarks.set(c.id, "changed");
  const present = new Set(base.nodes.map((n) => n.id));
  const presentEdges = new Set(base.edges.map((e) => e.id));
  const doc: Workflow = {
    ...base,
    nodes: [...base.nodes, ...graph.nodes.removed.filter((n) => !present.has(n.id))],
    edges: [...base.edges, ...graph.edges.removed.filter((e) => !presentEdges.has(e.id))],
  };
  return { doc, nodeMarks, edgeMarks };
}

/** Vue Flow nodes and edges of the preview, each carrying its mark as a class (`diff-added`, …). */
export function diffFlowElements(view: GraphDiffView): { nodes: (FlowNode & { class?: string })[]; edges: (FlowEdge & { class?: string })[] } {
  const classOf = (mark: DiffMark | undefined) => (mark ? { class: `diff-${mark}` } : {});
  return {
    nodes: view.doc.nodes.map((n) => ({ ...toFlowNode(n), ...classOf(view.nodeMarks.get(n.id)) })),
    edges: view.doc.edges.map((e) => ({ ...toFlowEdge(e), ...classOf(view.edgeMarks.get(e.id)) })),
  };
}

/** Counts for the legend, e.g. `{ added: 1, removed: 0, changed: 2, moved: 0 }` over nodes and edges. */
export function markCounts(view: GraphDiffView): Record<DiffMark, number> {
  const counts: Record<DiffMark, number> = { added: 0, removed: 0, changed: 0, moved: 0 };
  for (const mark of [...view.nodeMarks.values(), ...view.edgeMarks.values()]) counts[mark]++;
  return counts;
}
