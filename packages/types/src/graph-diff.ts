import type { GraphDiff, NodeChange } from "./builder-preview.ts";
import type { Workflow, WorkflowNode } from "./workflow.ts";
import { jsonEqual } from "./json-equal.ts";

const EMPTY: Pick<Workflow, "nodes" | "edges"> = { nodes: [], edges: [] };

function byId<T extends { id: string }>(items: readonly T[]): Map<string, T> {
  return new Map(items.map((i) => [i.id, i]));
}

/** The structural difference of two versions of a workflow (either side may be absent: created or deleted). */
export function graphDiff(before: Workflow | null, after: Workflow | null): GraphDiff {
  const b = before ?? EMPTY;
  const a = after ?? EMPTY;
  const bNodes = byId(b.nodes);
  const aNodes = byId(a.nodes);
  const changed: NodeChange[] = [];
  let unchangedNodes = 0;
  for (const node of b.nodes) {
    const now = aNodes.get(node.id);
    if (!now) continue;
    const fields = [...new Set([...Object.keys(node), ...Object.keys(now)])].filter((k) => !jsonEqual(node[k as keyof WorkflowNode], now[k as keyof WorkflowNode])).sort();
    if (fields.length === 0) unchangedNodes++;
    else changed.push({ id: node.id, before: node, after: now, fields, positionOnly: fields.length === 1 && fields[0] === "position" });
  }
  const bEdges = byId(b.edges);
  const aEdges = byId(a.edges);
  const changedEdges: GraphDiff["edges"]["changed"] = [];
  let unchangedEdges = 0;
  for (const edge of b.edges) {
    const now = aEdges.get(edge.id);
    if (!now) continue;
    if (jsonEqual(edge, now)) unchangedEdges++;
    else changedEdges.push({ id: edge.id, before: edge, after: now });
  }
  const fields = (["name", "description", "tags", "annotations"] as const).filter((k) => before && after && !jsonEqual(before[k], after[k]));
  return {
    nodes: { added: a.nodes.filter((n) => !bNodes.has(n.id)), removed: b.nodes.filter((n) => !aNodes.has(n.id)), changed, unchanged: unchangedNodes },
    edges: { added: a.edges.filter((e) => !bEdges.has(e.id)), removed: b.edges.filter((e) => !aEdges.has(e.id)), changed: changedEdges, unchanged: unchangedEdges },
    workflowFields: [...fields],
  };
}
