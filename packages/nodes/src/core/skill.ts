import { NodeFailure, SKILL_NODE_TYPE, type RunResult, messageOf } from "@weft/types";
import { defineNode } from "../define-node.ts";

/**
 * The NodeFailure for a sub-run that did not complete. A node that failed inside the skill gives
 * `SKILL_FAILED` naming that node; a sub-run that failed as a whole (recursion, unknown or invalid
 * workflow) keeps the engine's code, e.g. `SKILL_RECURSION`.
 */
export function skillFailure(workflowId: string, result: RunResult): NodeFailure {
  const inner = result.observations.find((o) => o.status === "failed");
  if (inner) {
    const why = inner.error ? `${inner.error.code}: ${inner.error.message}` : "no reason recorded";
    return new NodeFailure("SKILL_FAILED", `Skill "${workflowId}" failed at node "${inner.nodeId}" (${inner.nodeType}): ${why}`, {
      skill: workflowId,
      subRunId: result.runId,
      status: result.status,
      nodeId: inner.nodeId,
      nodeType: inner.nodeType,
      ...(inner.error ? { cause: inner.error } : {}),
    });
  }
  const verb = result.status === "cancelled" ? "was cancelled" : "failed";
  const why = result.error ? `: ${result.error.message}` : "";
  return new NodeFailure(result.error?.code ?? "SKILL_FAILED", `Skill "${workflowId}" ${verb}${why}`, {
    skill: workflowId,
    subRunId: result.runId,
    status: result.status,
    ...(result.error ? { cause: result.error } : {}),
  });
}

export const skill = defineNode(
  {
    type: SKILL_NODE_TYPE,
    title: "Skill",
    description: "Runs another saved workflow (a skill) by id as part of this run: its interface inputs are this node's inputs and its interface outputs are this node's outputs.",
    category: "interface",
    config: [
      {
        id: "workflowId",
        kind: "text",
        required: true,
        label: "Workflow",
        description: "Id of the workflow to run; its interface inputs and outputs become this node's ports.",
      },
    ],
    flags: { dynamicPorts: true },
  },
  async (inputs, ctx) => {
    const workflowId = String(ctx.config.workflowId).trim();
    if (workflowId === "") {
      throw new NodeFailure("INVALID_CONFIG", `Setting "workflowId" of ${SKILL_NODE_TYPE} is empty: choose the workflow this node runs.`, { field: "workflowId" });
    }
    let result: RunResult;
    try {
      result = await ctx.runSubworkflow(workflowId, inputs, { signal: ctx.signal });
    } catch (error) {
      // The runtime refuses some calls outright (recursion, unknown workflow, bad inputs): keep its code.
      const message = `Skill "${workflowId}" could not run: ${messageOf(error)}`;
      if (error instanceof NodeFailure) throw new NodeFailure(error.code, message, { ...error.details, skill: workflowId });
      throw new NodeFailure("SKILL_FAILED", message, { skill: workflowId });
    }
    if (result.status !== "completed") throw skillFailure(workflowId, result);
    return result.outputs;
  },
);
