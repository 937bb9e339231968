import type { RecordedNode } from "@weft/agent-runtime";
import type { RunWait } from "@weft/types";

/**
 * Where a run's pauses are kept (`../approvals/` implements it): a run that ends `waiting` stores what its nodes ask
 * before its status says so, and a later execution of the same run takes the decided ones as recorded outputs.
 */
export interface RunWaits {
  /** Stores the requests of a run that paused (a node already asked keeps its first request). */
  record(runId: string, workflowId: string, waits: readonly RunWait[], at: number): Promise<void>;
  /** The decided pauses of a run, by node id, as the outputs the resumed execution gives those nodes. */
  decided(runId: string): Promise<Map<string, RecordedNode>>;
  /** A waiting run was cancelled: its pending requests are closed (deciding one then is refused). */
  close(runId: string, at: number): Promise<void>;
}
