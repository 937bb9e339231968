import type { SceneStepView } from "@weft/types";
import { type LiveStep, traceOfLive, traceOfRecorded, type TraceStep } from "../agents/index.ts";

/** One agent's steps, oldest first: the recorded ones of the session, then those still under way. */
export function agentTrace(instanceId: string, recorded: readonly SceneStepView[], live: readonly LiveStep[]): TraceStep[] {
  const done = recorded.filter((s) => s.instanceId === instanceId).map((s) => traceOfRecorded(s.trace, `${s.conversationId}-${s.trace.step}`));
  const going = live.filter((s) => s.instanceId === instanceId).map(traceOfLive);
  return [...done, ...going].sort((a, b) => a.step - b.step);
}
