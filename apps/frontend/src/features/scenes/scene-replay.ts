import { countOf } from "../../shared/lib/count-of.ts";
import type { SceneReplayProgress, SceneReplayResult, SceneStateDifference } from "@weft/types";

/** How far a replay is, 0…1: by recorded model outputs served, or by messages when the record holds none. */
export function replayFraction(progress: SceneReplayProgress | null): number {
  if (!progress) return 0;
  if (progress.outputs > 0) return Math.min(1, progress.outputsUsed / progress.outputs);
  return progress.messages > 0 ? Math.min(1, progress.messagesDone / progress.messages) : 0;
}

/** The progress in words: "Replaying message 1 of 2 · model output 3 of 8". */
export function replayProgressText(progress: SceneReplayProgress | null): string {
  if (!progress) return "Starting the replay…";
  const message = Math.min(progress.messagesDone + 1, progress.messages);
  return `Replaying message ${message} of ${progress.messages} · model output ${progress.outputsUsed} of ${progress.outputs}`;
}

/** Where a difference is, for people: the world path, or the agent's private path. */
export function differencePlace(d: SceneStateDifference): string {
  const path = d.path || "(the whole state)";
  return d.instanceId === undefined ? path : `${d.instanceId} (private) · ${path}`;
}

/** What the replay says about the record beyond the states: outputs it could not take, outputs it left. */
export function replayWarnings(result: SceneReplayResult): string[] {
  const unused = Object.entries(result.unused).map(([id, n]) => `${id} left ${countOf(n, "recorded model output")} unused.`);
  return [...result.divergences, ...unused];
}
