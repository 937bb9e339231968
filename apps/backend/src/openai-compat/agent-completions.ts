import { randomUUID } from "node:crypto";
import { RunEventSchema, type ConversationMessage } from "@weft/types";
import type { AgentHost } from "../agents/agent-host.ts";
import type { AgentsStorage } from "../agents/agents-storage.ts";
import type { EventHub } from "../events/event-hub.ts";
import { ServiceError } from "../service-error.ts";

/** A chat turn for an agent: the conversation so far (as the client replays it) and the user's new message. */
export interface AgentTurn {
  agentId: string;
  /** Earlier messages, oldest first: the caller's instructions, user and assistant turns. */
  history: ReadonlyArray<{ role: "user" | "assistant"; content: string }>;
  message: string;
  /** The user the request acts for: the loop's runs and tool calls name them. */
  userId: string;
}

/** How the agent's loop ended: its status (completed, waiting_user, cut_off, failed, …) and the answer, question or reason. */
export interface AgentOutcome {
  status: string;
  text: string;
}

export interface AgentCompletionsDeps {
  agents: AgentHost;
  storage: AgentsStorage;
  hub: EventHub;
  /** How often storage is read while waiting, besides each wake-up by the hub (default 1 s). */
  pollMs?: number;
}

/** Events read per page while looking for the loop's end. */
const PAGE = 500;

/**
 * An agent's answer to one chat turn, as the OpenAI-compatible endpoint needs it: each request opens a new
 * conversation holding the history it was given, sends the last user message to the agent as the agent chat
 * does (in this process or on a queue-mode worker), and waits for the loop's `agent.finished` in the
 * conversation's stored events. The hub only wakes the wait early; storage is what it reads, so an event
 * stored by another process counts the same.
 */
export class AgentCompletions {
  constructor(private readonly deps: AgentCompletionsDeps) {}

  /** Opens the conversation (the agent checked first: NOT_FOUND without writing anything) and starts the loop on the turn. */
  async start(turn: AgentTurn): Promise<{ conversationId: string }> {
    const { storage, agents } = this.deps;
    const profile = (await storage.agents.get(turn.agentId))?.document;
    if (!profile) throw new ServiceError("NOT_FOUND", `There is no agent "${turn.agentId}". GET /v1/models lists the agents you may use.`, { agentId: turn.agentId });
    const conversationId = randomUUID();
    await storage.conversations.create({ id: conversationId, title: `${profile.name} (API)`, activeMode: "agent", agentId: profile.id });
    if (turn.history.length > 0) {
      const createdAt = new Date().toISOString();
      const meta = { createdAt, mode: "agent" as const, agentId: profile.id };
      const messages: ConversationMessage[] = turn.history.map((m) => ({ ...meta, id: randomUUID(), role: m.role, content: m.content }));
      await storage.conversations.append(conversationId, messages);
    }
    return agents.sendMessage(turn.agentId, turn.message, conversationId, turn.userId);
  }

  /**
   * Resolves with the loop's outcome once it has ended; rejects with SERVICE_UNAVAILABLE when the loop ended
   * without one (its process failed before it could say) or `timeoutMs` passed (the loop is then cancelled).
   * `signal` (the client gone away) cancels the loop and ends the wait. `afterSeq`: the conversation's last event
   * before the turn was sent, so a continued conversation's earlier `agent.finished` is not taken for this turn's.
   */
  wait(conversationId: string, timeoutMs: number, signal?: AbortSignal, afterSeq = -1): Promise<AgentOutcome> {
    const { hub, storage, agents } = this.deps;
    let after = afterSeq;
    let checking: Promise<void> | undefined;
    let again = false;
    return new Promise<AgentOutcome>((resolve, reject) => {
      const finish = (outcome: { value: AgentOutcome } | { error: unknown }) => {
        clearInterval(poll);
        clearTimeout(deadline);
        unsubscribe();
        signal?.removeEventListener("abort", abandon);
        if ("value" in outcome) resolve(outcome.value);
        else reject(outcome.error);
      };
      const cancel = () => void agents.cancel(conversationId).catch(() => undefined);
      const abandon = () => {
        cancel();
        finish({ error: new ServiceError("SERVICE_UNAVAILABLE", "The client went away; the agent's loop was cancelled.") });
      };
      const look = async (): Promise<AgentOutcome | "running" | "ended"> => {
        // The state before the events: a loop stores its agent.finished before it says it is no longer running.
        const running = (await agents.conversation(conversationId)).agent?.running ?? true;
        for (let page = await storage.events.listAfter(conversationId, after, PAGE); page.length > 0; page = await storage.events.listAfter(conversationId, after, PAGE)) {
          for (const stored of page) {
            after = stored.seq;
            if (stored.type !== "agent.finished") continue;
            const event = RunEventSchema.parse(JSON.parse(stored.json));
            if (event.type === "agent.finished") return { status: event.status, text: event.text ?? "" };
          }
        }
        return running ? "running" : "ended";
      };
      const check = () => {
        if (checking) {
          again = true;
          return;
        }
        checking = look()
          .then((seen) => {
            if (seen === "ended")
              finish({
                error: new ServiceError(
                  "SERVICE_UNAVAILABLE",
                  `The agent's loop in conversation ${conversationId} ended without an answer; GET /api/conversations/${conversationId} shows what it did.`,
                  { conversationId },
                ),
              });
            else if (seen !== "running") finish({ value: seen });
          })
          .catch((error: unknown) => finish({ error }))
          .finally(() => {
            checking = undefined;
            if (again) {
              again = false;
              check();
            }
          });
      };
      const unsubscribe = hub.subscribe(conversationId, (events) => {
        if (events.some((e) => e.type === "agent.finished")) check();
      });
      const poll = setInterval(check, this.deps.pollMs ?? 1000);
      const deadline = setTimeout(() => {
        cancel();
        finish({
          error: new ServiceError(
            "SERVICE_UNAVAILABLE",
            `The agent gave no answer within ${Math.round(timeoutMs / 1000)} s; its loop was cancelled. GET /api/conversations/${conversationId} shows how far it got.`,
            { conversationId },
          ),
        });
      }, timeoutMs);
      if (signal?.aborted) abandon();
      else signal?.addEventListener("abort", abandon, { once: true });
      check();
    });
  }
}
