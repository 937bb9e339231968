import type { NodeError, SceneLogEntry } from "@weft/types";
import type { RecordedLlmOutput } from "./scene-runtime-types.ts";

/** A tool or skill call a deliberation ran before a crash, as the scene log recorded it. */
export interface RecordedAction {
  toolId: string;
  params: unknown;
  status: "completed" | "failed";
  ok: boolean;
  observation: string;
  runId?: string;
  error?: NodeError;
  fullResultRef?: string;
  startedAt: number;
  durationMs: number;
}

/**
 * What a deliberation cut off by a crash had already done, read from the committed session log:
 * its model outputs by step (served again instead of asking the provider), the tool calls it ran
 * (by `step/index`; not run again, their recorded outcome is used) and, per step, how many world
 * writes, publishes and private-state writes the saved state has that no recorded call covers
 * (skipped when the re-run makes them again). An agent deliberates one trigger at a time, so every
 * effect it made after the trigger first started belongs to that trigger. Effects before a step's
 * model answer count for that step; those after it up to a recorded call are that call's.
 */
export interface ResumePlan {
  triggerId: string;
  /** Index `s - 1` holds step `s`'s output. */
  outputs: RecordedLlmOutput[];
  actions: Map<string, RecordedAction>;
  /** Index `s` counts step `s`'s effects no recorded call covers. */
  effects: number[];
}

interface Walk {
  plan: ResumePlan;
  step: number;
  /** Effects since the last model answer or recorded call. */
  segment: number;
}

/** Plans for the given in-flight triggers (instance id → trigger id), from the log. */
export function resumePlans(log: readonly SceneLogEntry[], inFlight: ReadonlyMap<string, string>): Map<string, ResumePlan> {
  const walks = new Map<string, Walk>();
  const mine = (instanceId: string, triggerId: string) => {
    const walk = walks.get(instanceId);
    return walk && walk.plan.triggerId === triggerId ? walk : undefined;
  };
  for (const entry of log) {
    switch (entry.kind) {
      case "deliberation.started":
        if (inFlight.get(entry.instanceId) === entry.triggerId && !walks.has(entry.instanceId)) {
          walks.set(entry.instanceId, { plan: { triggerId: entry.triggerId, outputs: [], actions: new Map(), effects: [0] }, step: 0, segment: 0 });
        }
        break;
      case "llm.output": {
        const walk = mine(entry.instanceId, entry.triggerId);
        if (!walk) break;
        const step = entry.step > 0 ? entry.step : walk.step + 1;
        walk.plan.outputs[step - 1] ??= { text: entry.text, ...(entry.reasoning !== undefined ? { reasoning: entry.reasoning } : {}), ...(entry.toolCalls ? { toolCalls: entry.toolCalls } : {}) };
        add(walk.plan, step, walk.segment);
        walk.step = step;
        walk.segment = 0;
        break;
      }
      case "action.completed": {
        const walk = mine(entry.instanceId, entry.triggerId);
        if (!walk) break;
        const { toolId, params, status, ok, observation, runId, error, fullResultRef, durationMs, ts } = entry;
        walk.plan.actions.set(`${entry.step}/${entry.index}`, {
          toolId,
          params,
          status,
          ok,
          observation,
          ...(runId !== undefined ? { runId } : {}),
          ...(error ? { error } : {}),
          ...(fullResultRef !== undefined ? { fullResultRef } : {}),
          startedAt: ts - durationMs,
          durationMs,
        });
        // The effects since the step's answer were this call's: it is not run again, so neither are they.
        walk.segment = 0;
        break;
      }
      case "world.changed":
        if (entry.change.agentId !== undefined) count(walks, entry.change.agentId);
        break;
      case "event":
        count(walks, entry.source);
        break;
      case "private.changed":
        count(walks, entry.instanceId);
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
  const plans = new Map<string, ResumePlan>();
  for (const [id, walk] of walks) {
    // The effects after the last answer or recorded call: of the call in flight at the crash.
    add(walk.plan, Math.max(1, walk.step), walk.segment);
    plans.set(id, walk.plan);
  }
  return plans;
}

/** The effects a re-run makes again that the saved state has, once its first `after` steps are not re-run. */
export function effectsAfter(plan: ResumePlan, after: number): number {
  let total = 0;
  for (let s = after + 1; s < plan.effects.length; s++) total += plan.effects[s] ?? 0;
  return total;
}

function add(plan: ResumePlan, step: number, n: number): void {
  plan.effects[step] = (plan.effects[step] ?? 0) + n;
}

function count(walks: Map<string, Walk>, instanceId: string): void {
  const walk = walks.get(instanceId);
  if (walk) walk.segment++;
}
