import type { NodeRunStatus } from "./run-state.ts";

/**
 * The CSS variable that colours a node by its run status where nodes are drawn on a canvas (the
 * overview and the minimap); a status without one is drawn idle.
 */
export const STATUS_VAR: Partial<Record<NodeRunStatus, string>> = {
  completed: "--ok",
  cached: "--cached",
  failed: "--danger",
  running: "--accent",
  retrying: "--accent",
  queued: "--accent",
  skipped: "--skipped",
};
