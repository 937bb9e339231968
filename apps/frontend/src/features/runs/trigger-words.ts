import type { RunTrigger } from "@weft/types";

/** What started a run, in words for a tooltip: a trigger node, or a failed run whose error workflow this is. */
export function triggerTitle(trigger: RunTrigger): string {
  if (trigger.kind === "error") return `Started as the error workflow of the failed run ${trigger.runId ?? ""}`;
  return `Started by the ${trigger.kind} ${trigger.path ?? trigger.nodeId ?? ""}`;
}
