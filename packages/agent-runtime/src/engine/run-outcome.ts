import type { NodeError, NodeValues, Observation, RunResult, RunWait } from "@weft/types";

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
  /** `waiting`: the nodes that paused the run. */
  waiting?: RunWait[];
}

/**
 * The status and error of a finished graph: the first failure names the run's error and lists the others. A graph
 * with paused nodes and no failure is `waiting`; with a failure it failed (a failed run is not resumed).
 */
export function runOutcome(halt: Halt | null, failures: readonly { nodeId: string; error: NodeError }[], outputs: NodeValues, observations: Observation[], waits: RunWait[] = []): GraphOutcome {
  const base = { outputs, observations };
  if (halt?.kind === "cancel") return { ...base, status: "cancelled", error: halt.error };
  const first = halt?.kind === "stop" ? { nodeId: halt.causeNodeId ?? "", error: halt.error } : failures[0];
  if (!first) return waits.length > 0 ? { ...base, status: "waiting", waiting: waits } : { ...base, status: "completed" };
  const failedNodeIds = failures.map((f) => f.nodeId);
  const error: NodeError = {
    code: first.error.code,
    message: `node "${first.nodeId}" failed: ${first.error.message}${failedNodeIds.length > 1 ? ` (and ${failedNodeIds.length - 1} more failed)` : ""}`,
    details: { nodeId: first.nodeId, failedNodeIds, ...(first.error.details ? { cause: first.error.details } : {}) },
  };
  return { ...base, status: "failed", error };
}
