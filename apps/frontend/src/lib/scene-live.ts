import type { RunEvent, SceneAgentStatus, SceneStepView } from "@weft/types";

/** One action of a step as its live events tell it: the parsed call or the refusal, then its Observation. */
export interface LiveAction {
  parse: { kind: "call"; toolId: string; params: Record<string, unknown> } | { kind: "error"; code: string; message: string };
  observation?: { text: string; ok: boolean; runId?: string };
}

/** A deliberation step still under way (or finished but not yet read back from the server's record). */
export interface LiveStep {
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

/**
 * What the scene's live events say between two reads of its state: each agent's status as the
 * events left it, and the steps under way. A state read replaces the statuses of the events it
 * covers; a step leaves once its recorded trace is read.
 */
export interface SceneLive {
  /** Each agent's status as the last event about it left it, with that event's seq. */
  statuses: Record<string, { status: SceneAgentStatus; seq: number }>;
  steps: LiveStep[];
  /** Per agent, the last step whose recorded trace was read (its events are not kept again). */
  recorded: Record<string, number>;
}

export const newSceneLive = (): SceneLive => ({ statuses: {}, steps: [], recorded: {} });

function stepOf(live: SceneLive, instanceId: string, step: number): LiveStep {
  let found = live.steps.find((s) => s.instanceId === instanceId && s.step === step);
  if (!found) {
    found = { instanceId, step, phase: "deliberating", actions: [] };
    // A step already read back from the record is shown from there: its events change nothing.
    if (step > (live.recorded[instanceId] ?? 0)) live.steps.push(found);
  }
  return found;
}

/**
 * Folds one event of the scene's stream in. Returns whether the event concerns the scene's state
 * at all (then it is worth reading the state again).
 */
export function applySceneEvent(live: SceneLive, event: RunEvent): boolean {
  const setStatus = (agentId: string, status: SceneAgentStatus) => {
    live.statuses[agentId] = { status, seq: event.seq };
  };
  switch (event.type) {
    case "agent.step": {
      const step = stepOf(live, event.agentId, event.step);
      step.phase = event.phase;
      if (event.phase !== "done") setStatus(event.agentId, "deliberating");
      return true;
    }
    case "agent.llm.output": {
      const step = stepOf(live, event.agentId, event.step);
      step.text = event.text;
      if (event.reasoning) step.reasoning = event.reasoning;
      if (event.runId) step.runId = event.runId;
      return true;
    }
    case "agent.action.parsed":
      stepOf(live, event.agentId, event.step).actions.push({ parse: { kind: "call", toolId: event.toolId, params: event.params } });
      return true;
    case "agent.action.rejected":
      stepOf(live, event.agentId, event.step).actions.push({ parse: { kind: "error", code: event.code, message: event.message } });
      return true;
    case "agent.observation": {
      const step = stepOf(live, event.agentId, event.step);
      const observation = { text: event.text, ok: event.ok, ...(event.runId ? { runId: event.runId } : {}) };
      const waiting = [...step.actions].reverse().find((a) => !a.observation);
      if (waiting) waiting.observation = observation;
      else step.actions.push({ parse: { kind: "error", code: "NO_ACTION", message: "" }, observation });
      return true;
    }
    case "agent.permission.requested":
      setStatus(event.agentId, "waiting_permission");
      return true;
    case "agent.permission.answered":
      setStatus(event.agentId, "deliberating");
      return true;
    case "agent.finished":
      // Not idle yet: the scene still records the deliberation; the state read after its `scene.log` says what follows.
      return true;
    case "scene.event":
    case "scene.status":
    case "world.changed":
    case "scene.log":
      return true;
    case "run.started":
    case "node.started":
    case "node.chunk":
    case "node.retrying":
    case "node.completed":
    case "node.failed":
    case "node.skipped":
    case "run.completed":
    case "run.failed":
    case "run.cancelled":
      return false;
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** A state read that covers the stream up to `streamSeq` replaces the statuses events set until then. */
export function forgetCoveredStatuses(live: SceneLive, streamSeq: number): void {
  for (const [id, s] of Object.entries(live.statuses)) if (s.seq <= streamSeq) delete live.statuses[id];
}

/** Steps read back from the record replace their live versions. */
export function forgetRecordedSteps(live: SceneLive, recorded: readonly SceneStepView[]): void {
  for (const s of recorded) live.recorded[s.instanceId] = Math.max(live.recorded[s.instanceId] ?? 0, s.trace.step);
  live.steps = live.steps.filter((s) => s.step > (live.recorded[s.instanceId] ?? 0));
}
