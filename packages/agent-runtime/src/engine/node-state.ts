/** Where a node of a running graph is. */
export const NodeState = {
  Waiting: 0,
  Running: 1,
  Completed: 2,
  Failed: 3,
  Skipped: 4,
  Cancelled: 5,
  /** Paused the run (`suspendRun`): settled by a later execution of the run. */
  Suspended: 6,
} as const;

/** How a skip reason says what happened to an upstream node, by state. */
export const STATE_WORDS: readonly string[] = ["is waiting", "is running", "completed", "failed", "was skipped", "was cancelled", "waits for a decision"];
