import { LOOP_FINISHED, waitForLoop, type AgentOutcome, type LoopStopRule, type LoopWaitDeps } from "../agents/loop-wait.ts";

/** Where an agent's loop stopped for an A2A task: it ended (`agent.finished`), or it waits for a person to allow a tool. */
export type LoopStop = { kind: "finished"; outcome: AgentOutcome } | { kind: "permission"; requestId: string; tool: string; target?: string };

/** A stop at the loop's end, or, once the events are read through, at its first permission question not answered yet. */
function loopStopRule(): LoopStopRule<LoopStop> {
  const asked = new Map<string, { tool: string; target?: string }>();
  return {
    types: new Set([...LOOP_FINISHED.types, "agent.permission.requested", "agent.permission.answered"]),
    see(event) {
      const outcome = LOOP_FINISHED.see(event);
      if (outcome) return { kind: "finished", outcome };
      if (event.type === "agent.permission.requested") asked.set(event.requestId, { tool: event.tool, ...(event.target !== undefined ? { target: event.target } : {}) });
      if (event.type === "agent.permission.answered") asked.delete(event.requestId);
      return undefined;
    },
    caughtUp() {
      const [pending] = asked;
      return pending ? { kind: "permission", requestId: pending[0], ...pending[1] } : undefined;
    },
  };
}

/**
 * Waits for the loop of `conversationId` to end or to ask a permission question (one not answered yet) after
 * `afterSeq`. A permission prompt does not end the loop: it waits there until answered (`AgentHost.answerPermission`).
 * Past `timeoutMs`, or when the loop ended without saying how, this rejects with SERVICE_UNAVAILABLE (the loop
 * cancelled on timeout); `signal` (the task cancelled, which cancels the loop itself) ends the wait with a rejection.
 */
export function nextLoopStop(deps: LoopWaitDeps, conversationId: string, afterSeq: number, timeoutMs: number, signal: AbortSignal): Promise<LoopStop> {
  return waitForLoop(deps, conversationId, { afterSeq, timeoutMs, stop: loopStopRule(), signal });
}
