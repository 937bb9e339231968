import { isWorkflowRunEvent, type RunEvent, type SceneAgentStatus, type SceneStepView } from "@weft/types";
import { applyStepEvent, forgetStepsUpTo, type LiveSteps } from "../agents/index.ts";

/**
 * What the scene's live events say between two reads of its state: each agent's status as the
 * events left it, and the steps under way. A state read replaces the statuses of the events it
 * covers; a step leaves once its recorded trace is read.
 */
export interface SceneLive extends LiveSteps {
  /** Each agent's status as the last event about it left it, with that event's seq. */
  statuses: Record<string, { status: SceneAgentStatus; seq: number }>;
}

export const newSceneLive = (): SceneLive => ({ statuses: {}, steps: [], recorded: {} });

/**
 * Folds one event of the scene's stream in. Returns whether the event concerns the scene's state
 * at all (then it is worth reading the state again).
 */
export function applySceneEvent(live: SceneLive, event: RunEvent): boolean {
  const setStatus = (agentId: string, status: SceneAgentStatus) => {
    live.statuses[agentId] = { status, seq: event.seq };
  };
  // A scene's stream carries no workflow-run events; runs have streams of their own.
  if (isWorkflowRunEvent(event)) return false;
  switch (event.type) {
    case "agent.step":
      applyStepEvent(live, event);
      if (event.phase !== "done") setStatus(event.agentId, "deliberating");
      return true;
    case "agent.llm.output":
    case "agent.action.parsed":
    case "agent.action.rejected":
    case "agent.observation":
      applyStepEvent(live, event);
      return true;
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
    case "eval.progress":
    case "eval.finished":
      return true;
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
  for (const s of recorded) forgetStepsUpTo(live, s.instanceId, s.trace.step);
}
