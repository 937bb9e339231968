import type { NodeDefinition, NodeSpec, NodeValues, Workflow } from "@weft/types";
import { isFrozenWorkflow } from "./frozen-workflow.ts";

/** A node with pinned outputs (`node.pinned`): same ports, and instead of its work it hands on the pinned values. */
export function pinnedDefinition(spec: NodeSpec, pinned: NodeValues): NodeDefinition {
  return { spec, execute: () => pinned };
}

/** Copies made by `pinOutputs` of a frozen workflow: the frozen workflow and the node pinned on the copy. */
const pinnedCopies = new WeakMap<Workflow, { base: Workflow; nodeId: string }>();

/**
 * A copy of `workflow` with `outputs` pinned on node `nodeId` (the nodes it shares are not changed): what a trigger
 * received, on the run's copy of the stored workflow. When `workflow` is frozen (`freezeWorkflow`), the engine runs
 * the copy on the frozen workflow's compiled graph with only that node's definition swapped, instead of compiling
 * the copy (a webhook run compiled its 3-node graph every time: ~5% of the request's CPU). The copy and its
 * pinned node are frozen (their outputs are not) so that graph stays right.
 */
export function pinOutputs(workflow: Workflow, nodeId: string, outputs: NodeValues): Workflow {
  const nodes = Object.freeze(workflow.nodes.map((n) => (n.id === nodeId ? Object.freeze({ ...n, pinned: outputs }) : n)));
  const copy = Object.freeze({ ...workflow, nodes: nodes as Workflow["nodes"] });
  if (isFrozenWorkflow(workflow)) pinnedCopies.set(copy, { base: workflow, nodeId });
  return copy;
}

/** The frozen workflow a `pinOutputs` copy was made from, and its pinned node; undefined for any other workflow. */
export function pinnedCopyOf(workflow: Workflow): { base: Workflow; nodeId: string } | undefined {
  return pinnedCopies.get(workflow);
}
