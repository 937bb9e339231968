import type { SceneLogEntry } from "@weft/types";

/** Where a scene fork starts: an agent's deliberation (its trigger) and the step in it, as `POST /api/scenes/:id/fork` names them. */
export interface SceneForkPoint {
  triggerId: string;
  step: number;
}

/**
 * The fork point of an agent's `nth` recorded step (0-based, in the order its trace shows them): each step of an agent
 * is one `llm.output` entry of the session log, numbered within its deliberation. Null when the log does not hold it
 * (not read yet, or the step is still under way).
 */
export function forkPointOf(instanceId: string, nth: number, entries: readonly SceneLogEntry[]): SceneForkPoint | null {
  let seen = 0;
  for (const entry of entries) {
    if (entry.kind !== "llm.output" || entry.instanceId !== instanceId) continue;
    if (seen++ === nth) return { triggerId: entry.triggerId, step: entry.step };
  }
  return null;
}
