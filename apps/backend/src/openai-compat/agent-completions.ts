import { randomUUID } from "node:crypto";
import type { ConversationMessage } from "@weft/types";
import type { AgentHost } from "../agents/agent-host.ts";
import type { AgentsStorage } from "../agents/agents-storage.ts";
import { LOOP_FINISHED, waitForLoop, type AgentOutcome, type LoopWaitDeps } from "../agents/loop-wait.ts";
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

export type { AgentOutcome };
export interface AgentCompletionsDeps extends LoopWaitDeps {
  agents: AgentHost;
  storage: AgentsStorage;
}

/**
 * An agent's answer to one chat turn, as the OpenAI-compatible endpoint needs it: each request opens a new
 * conversation holding the history it was given, sends the last user message to the agent as the agent chat
 * does (in this process or on a queue-mode worker), and waits for the loop's `agent.finished` in the
 * conversation's stored events (`../agents/loop-wait.ts`).
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
    return waitForLoop(this.deps, conversationId, { afterSeq, timeoutMs, stop: LOOP_FINISHED, ...(signal ? { signal, cancelOnAbort: true } : {}) });
  }
}
