import type { RunEvent } from "@weft/types";

/** One action of a step as its live events tell it: the parsed call or the refusal, then its Observation. */
export interface LiveAction {
  parse: { kind: "call"; toolId: string; params: Record<string, unknown> } | { kind: "error"; code: string; message: string };
  observation?: { text: string; ok: boolean; runId?: string };
}

/** A deliberation step still under way (or finished but not yet read back from the server's record). */
export interface LiveStep {
  /** The agent as its events name it (`agentId`: a scene's instance id, or the profile id outside scenes). */
  instanceId: string;
  step: number;
  phase: "deliberating" | "acting" | "done";
  /** The raw LLM output, once the model answered. */
  text?: string;
  reasoning?: string;
  /** The deliberation run. */
  runId?: string;
  actions: LiveAction[];
}

/** The steps under way, and per agent the last step already read back from the record (its events are not kept again). */
export interface LiveSteps {
  steps: LiveStep[];
  recorded: Record<string, number>;
}

/** The events that tell how a deliberation step goes. */
export type AgentStepEvent = Extract<RunEvent, { type: "agent.step" | "agent.llm.output" | "agent.action.parsed" | "agent.action.rejected" | "agent.observation" }>;

function stepOf(live: LiveSteps, instanceId: string, step: number): LiveStep {
  let found = live.steps.find((s) => s.instanceId === instanceId && s.step === step);
  if (!found) {
    found = { instanceId, step, phase: "deliberating", actions: [] };
    // A step already read back from the record is shown from there: its events change nothing.
    if (step > (live.recorded[instanceId] ?? 0)) live.steps.push(found);
  }
  return found;
}

/** Folds one event of a step into the steps under way. */
export function applyStepEvent(live: LiveSteps, event: AgentStepEvent): void {
  switch (event.type) {
    case "agent.step":
      stepOf(live, event.agentId, event.step).phase = event.phase;
      return;
    case "agent.llm.output": {
      const step = stepOf(live, event.agentId, event.step);
      step.text = event.text;
      if (event.reasoning) step.reasoning = event.reasoning;
      if (event.runId) step.runId = event.runId;
      return;
    }
    case "agent.action.parsed":
      stepOf(live, event.agentId, event.step).actions.push({ parse: { kind: "call", toolId: event.toolId, params: event.params } });
      return;
    case "agent.action.rejected":
      stepOf(live, event.agentId, event.step).actions.push({ parse: { kind: "error", code: event.code, message: event.message } });
      return;
    case "agent.observation": {
      const step = stepOf(live, event.agentId, event.step);
      const observation = { text: event.text, ok: event.ok, ...(event.runId ? { runId: event.runId } : {}) };
      const waiting = [...step.actions].reverse().find((a) => !a.observation);
      if (waiting) waiting.observation = observation;
      else step.actions.push({ parse: { kind: "error", code: "NO_ACTION", message: "" }, observation });
      return;
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** Steps up to `step` of an agent were read back from the record: their live versions leave. */
export function forgetStepsUpTo(live: LiveSteps, instanceId: string, step: number): void {
  live.recorded[instanceId] = Math.max(live.recorded[instanceId] ?? 0, step);
  live.steps = live.steps.filter((s) => s.instanceId !== instanceId || s.step > (live.recorded[instanceId] ?? 0));
}
