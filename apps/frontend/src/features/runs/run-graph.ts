import { WorkflowSchema, type Observation, type Workflow } from "@weft/types";
import { deepEqual } from "../../shared/lib/deep-equal.ts";

/** What a node computes, without where it sits or how it is drawn. */
const behaviour = ({ position: _position, ui: _ui, ...node }: Workflow["nodes"][number]) => node;

/** Whether two versions of a workflow run the same graph (moving or collapsing a node does not count). */
export function sameGraph(a: Pick<Workflow, "nodes" | "edges">, b: Pick<Workflow, "nodes" | "edges">): boolean {
  return deepEqual(a.nodes.map(behaviour), b.nodes.map(behaviour)) && deepEqual(a.edges, b.edges);
}

const COLUMN_WIDTH = 300;

/**
 * The graph of a run whose workflow was not kept (an agent's one-node tool call): the nodes it observed,
 * in the order they started, side by side, each holding the inputs of its first invocation as its literal
 * inputs (a one-node call has no edges, so that is exactly what it was given).
 */
export function workflowFromObservations(workflowId: string, observations: Observation[]): Workflow {
  const first = new Map<string, Observation>();
  for (const o of [...observations].sort((a, b) => a.startedAt - b.startedAt)) if (!first.has(o.nodeId)) first.set(o.nodeId, o);
  const nodes = [...first.values()].map((o, i) => ({ id: o.nodeId, type: o.nodeType, position: { x: i * COLUMN_WIDTH, y: 0 }, inputs: o.inputs }));
  return WorkflowSchema.parse({ id: workflowId, name: workflowId, nodes });
}
