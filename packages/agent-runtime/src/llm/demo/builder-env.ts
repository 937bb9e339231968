import type { BuilderTarget, Workflow, WorkflowNode } from "@weft/types";
import type { Draft, TurnReads } from "./builder-reads.ts";

/** What a change is drafted against: the workflow as the session sees it, the session's target, this turn's reads. */
export interface EditEnv {
  workflow: Workflow;
  target: Extract<BuilderTarget, { type: "workflow" | "node" }>;
  reads: TurnReads;
}

export function refuse(text: string): Draft {
  return { kind: "refuse", text };
}

/** A node named by its id or its label (any case). */
export function findNode(workflow: Workflow, name: string): WorkflowNode | undefined {
  const lower = name.toLowerCase();
  return workflow.nodes.find((n) => n.id === name) ?? workflow.nodes.find((n) => n.id.toLowerCase() === lower) ?? workflow.nodes.find((n) => n.label?.toLowerCase() === lower);
}

export function nodeList(workflow: Workflow): string {
  return workflow.nodes.map((n) => `"${n.id}"${n.label ? ` (${n.label})` : ""}`).join(", ");
}

/**
 * The node a request is about: the named one, else the session's node. In a node session only
 * that node may change; `what` says what the user wanted, for the refusal.
 */
export function subjectNode(env: EditEnv, name: string | undefined, what: string): WorkflowNode | Draft {
  const { workflow, target } = env;
  if (name === undefined) {
    if (target.type === "node") return findNode(workflow, target.nodeId) ?? refuse(`Node "${target.nodeId}" is not in workflow "${workflow.id}" any more.`);
    return refuse(`Say which node to ${what}, e.g. "${what === "remove" ? "remove node <node>" : "set <setting> of <node> to <value>"}". Its nodes are ${nodeList(workflow)}.`);
  }
  const node = findNode(workflow, name);
  if (!node) return refuse(`Workflow "${workflow.id}" has no node "${name}". Its nodes are ${nodeList(workflow)}.`);
  if (target.type === "node" && node.id !== target.nodeId) {
    return refuse(`This session may change only node "${target.nodeId}", not "${node.id}": open a Builder session on the workflow to ${what} other nodes.`);
  }
  return node;
}

export function isDraft(value: WorkflowNode | Draft): value is Draft {
  return "kind" in value;
}
