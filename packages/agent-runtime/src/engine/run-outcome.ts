import type { NodeError, NodeValues, Observation, RunResult } from "@weft/types";

/** Why a graph stopped early: cancelled from outside, or a node with the `stop` policy failed. */
export interface Halt {
  kind: "cancel" | "stop";
  reason: string;
  causeNodeId?: string;
  error: NodeError;
}

export interface GraphOutcome {
  status: RunResult["status"];
  outputs: NodeValues;
  error?: NodeError;
  observations: Observation[];
}

/** The status and error of a finished graph: the first failure names the run's error and lists the others. */
export function runOutcome(halt: Halt | null, failures: readonly { nodeId: string; error: NodeError }[], outputs: NodeValues, observations: Observation[]): GraphOutcome {
  const base = { outputs, observations };
  if (halt?.kind === "cancel") return { ...base, status: "cancelled", error: halt.error };
  const first = halt?.kind === "stop" ? { nodeId: halt.causeNodeId ?? "", error: halt.error } : failures[0];
  if (!first) return { ...base, status: "completed" };
  const failedNodeIds = failures.map((f) => f.nodeId);
  const error: NodeError = {
    code: first.error.code,
    message: `node "${first.nodeId}" failed: ${first.error.message}${failedNodeIds.length > 1 ? ` (and ${failedNodeIds.length - 1} more failed)` : ""}`,
    details: { nodeId: first.nodeId, failedNodeIds, ...(first.error.details ? { cause: first.error.details } : {}) },
  };
  return { ...base, status: "failed", error };
}
