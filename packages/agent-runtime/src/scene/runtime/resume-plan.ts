import type { SceneLogEntry } from "@weft/types";
import type { RecordedLlmOutput } from "./scene-runtime.ts";

/**
 * What a deliberation cut off by a crash had already done, read from the committed session log:
 * its model outputs (served again instead of asking the provider) and how many of its world
 * writes, publishes and private-state writes are in the saved state (skipped when the re-run makes
 * them again). An agent deliberates one trigger at a time, so every effect it made after the
 * trigger first started belongs to that trigger.
 */
export interface ResumePlan {
  triggerId: string;
  outputs: RecordedLlmOutput[];
  effects: number;
}

/** Plans for the given in-flight triggers (instance id → trigger id), from the log. */
export function resumePlans(log: readonly SceneLogEntry[], inFlight: ReadonlyMap<string, string>): Map<string, ResumePlan> {
  const plans = new Map<string, ResumePlan>();
  for (const entry of log) {
    switch (entry.kind) {
      case "deliberation.started":
        if (inFlight.get(entry.instanceId) === entry.triggerId && !plans.has(entry.instanceId)) plans.set(entry.instanceId, { triggerId: entry.triggerId, outputs: [], effects: 0 });
        break;
      case "llm.output": {
        const plan = plans.get(entry.instanceId);
        if (plan && plan.triggerId === entry.triggerId) {
          plan.outputs.push({ text: entry.text, ...(entry.reasoning !== undefined ? { reasoning: entry.reasoning } : {}), ...(entry.toolCalls ? { toolCalls: entry.toolCalls } : {}) });
        }
        break;
      }
      case "world.changed":
        if (entry.change.agentId !== undefined) count(plans, entry.change.agentId);
        break;
      case "event":
        count(plans, entry.source);
        break;
      case "private.changed":
        count(plans, entry.instanceId);
        break;
      case "status":
      case "trigger.queued":
      case "trigger.coalesced":
      case "trigger.dropped":
      case "deliberation.finished":
        break;
      default: {
        const never: never = entry;
        return never;
      }
    }
  }
  return plans;
}

function count(plans: Map<string, ResumePlan>, instanceId: string): void {
  const plan = plans.get(instanceId);
  if (plan) plan.effects++;
}
