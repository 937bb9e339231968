import { WorkflowSchema, type Observation, type Workflow } from "@weft/types";
import { deepEqual } from "./deep-equal.ts";

/** What a node computes, without where it sits or how it is drawn. */
const behaviour = ({ position: _position, ui: _ui, ...node }: Workflow["nodes"][number]) => node;

/** Whether two versions of a workflow run the same graph (moving or collapsing a node does not count). */
export function sameGraph(a: Pick<Workflow, "nodes" | "edges">, b: Pick<Workflow, "nodes" | "edges">): boolean {
  return deepEqual(a.nodes.map(behaviour), b.nodes.map(behaviour)) && deepEqual(a.edges, b.edges);
}

const COLUMN_WIDTH = 300;

/**
 * The graph of a run whose workflow was not kept (an agent's one-node tool call): the nodes it observed,
 * in the order they started, side by side. Enough to select each node and inspect what it did.
 */
export function workflowFromObservations(workflowId: string, observations: Observation[]): Workflow {
  const types = new Map<string, string>();
  for (const o of [...observations].sort((a, b) => a.startedAt - b.startedAt)) if (!types.has(o.nodeId)) types.set(o.nodeId, o.nodeType);
  const nodes = [...types].map(([id, type], i) => ({ id, type, position: { x: i * COLUMN_WIDTH, y: 0 } }));
  return WorkflowSchema.parse({ id: workflowId, name: workflowId, nodes });
}
