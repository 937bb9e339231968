import { RunEventSchema, type RunEvent } from "@weft/types";
import type { EventHub } from "../events/event-hub.ts";
import type { EventRepository } from "../events/event-repository.ts";
import { ServiceError } from "../service-error.ts";
import type { AgentConversationState, AgentHost } from "./agent-host.ts";

/** How the agent's loop ended: its status (completed, waiting_user, cut_off, failed, …) and the answer, question or reason. */
export interface AgentOutcome {
  status: string;
  text: string;
}

/** What a wait reads: the loop's state, the conversation's stored events and this process's hub. */
export interface LoopWaitDeps {
  agents: Pick<AgentHost, "cancel"> & { conversation(conversationId: string): Promise<{ agent?: Pick<AgentConversationState, "running"> }> };
  storage: { events: Pick<EventRepository, "listAfter"> };
  hub: EventHub;
  /**
   * How often storage is read besides each wake-up by the hub (default 1 s): only a loop whose process died says
   * nothing, and a lost queue-mode announcement costs this much latency.
   */
  pollMs?: number;
}

/** What ends a wait on an agent's loop, read from the conversation's stored events. */
export interface LoopStopRule<T> {
  /** The event types the rule reads (the others are passed over unparsed); one of them published wakes the wait. */
  types: ReadonlySet<string>;
  /** Each such event after `afterSeq`, in seq order: a value ends the wait with it. */
  see(event: RunEvent): T | undefined;
  /** Once the stored events are read through and the loop still runs: a value ends the wait with it. */
  caughtUp?(): T | undefined;
}

export interface LoopWait<T> {
  /** The conversation's last event before the turn, so an earlier turn's events are not taken for this one's. */
  afterSeq: number;
  /** Past it the loop is cancelled and the wait rejects with SERVICE_UNAVAILABLE. */
  timeoutMs: number;
  stop: LoopStopRule<T>;
  /** Ends the wait (rejects with SERVICE_UNAVAILABLE); with `cancelOnAbort`, the loop is cancelled too. */
  signal?: AbortSignal;
  cancelOnAbort?: boolean;
}

/** Events read per page. */
const PAGE = 500;

/** The rule most waits need: the loop's `agent.finished`, with its status and text. */
export const LOOP_FINISHED: LoopStopRule<AgentOutcome> = {
  types: new Set(["agent.finished"]),
  see: (event) => (event.type === "agent.finished" ? { status: event.status, text: event.text ?? "" } : undefined),
};

/**
 * Waits on the loop of `conversationId` until `stop` says so, reading the conversation's stored events (so an event
 * stored by a queue worker counts the same). The hub's events of the rule's types wake the read; a slow poll is the
 * fallback. Rejects with SERVICE_UNAVAILABLE when the loop ended without `stop` having said anything (its process
 * failed before it could say), or when `timeoutMs` passed (the loop is then cancelled).
 */
export function waitForLoop<T>(deps: LoopWaitDeps, conversationId: string, wait: LoopWait<T>): Promise<T> {
  const { hub, storage, agents } = deps;
  const { stop, signal } = wait;
  let after = wait.afterSeq;
  let checking = false;
  let again = false;
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const finish = (outcome: { value: T } | { error: unknown }) => {
      if (done) return;
      done = true;
      clearInterval(poll);
      clearTimeout(deadline);
      unsubscribe();
      signal?.removeEventListener("abort", abandon);
      if ("value" in outcome) resolve(outcome.value);
      else reject(outcome.error);
    };
    const cancel = () => void agents.cancel(conversationId).catch(() => undefined);
    const abandon = () => {
      if (wait.cancelOnAbort) cancel();
      finish({ error: new ServiceError("SERVICE_UNAVAILABLE", `The wait for the agent's answer was abandoned${wait.cancelOnAbort ? "; the agent's loop was cancelled" : ""}.`) });
    };
    const look = async (): Promise<{ value: T } | "running" | "ended"> => {
      // The state before the events: a loop stores its agent.finished before it says it is no longer running.
      const running = (await agents.conversation(conversationId)).agent?.running ?? true;
      for (let page = await storage.events.listAfter(conversationId, after, PAGE); page.length > 0 && !done; page = await storage.events.listAfter(conversationId, after, PAGE)) {
        for (const stored of page) {
          after = stored.seq;
          if (!stop.types.has(stored.type)) continue;
          const value = stop.see(RunEventSchema.parse(JSON.parse(stored.json)));
          if (value !== undefined) return { value };
        }
      }
      const value = stop.caughtUp?.();
      if (value !== undefined) return { value };
      return running ? "running" : "ended";
    };
    const check = () => {
      if (done) return;
      if (checking) {
        again = true;
        return;
      }
      checking = true;
      look()
        .then((seen) => {
          if (seen === "ended")
            finish({
              error: new ServiceError(
                "SERVICE_UNAVAILABLE",
                `The agent's loop in conversation ${conversationId} ended without an answer; GET /api/conversations/${conversationId} shows what it did.`,
                { conversationId },
              ),
            });
          else if (seen !== "running") finish(seen);
        })
        .catch((error: unknown) => finish({ error }))
        .finally(() => {
          checking = false;
          if (again) {
            again = false;
            check();
          }
        });
    };
    const unsubscribe = hub.subscribe(conversationId, (events) => {
      if (events.some((e) => stop.types.has(e.type))) check();
    });
    const poll = setInterval(check, deps.pollMs ?? 1000);
    const deadline = setTimeout(() => {
      cancel();
      finish({
        error: new ServiceError(
          "SERVICE_UNAVAILABLE",
          `The agent gave no answer within ${Math.round(wait.timeoutMs / 1000)} s; its loop was cancelled. GET /api/conversations/${conversationId} shows how far it got.`,
          { conversationId },
        ),
      });
    }, wait.timeoutMs);
    if (signal?.aborted) abandon();
    else signal?.addEventListener("abort", abandon, { once: true });
    check();
  });
}
