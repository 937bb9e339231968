import type { AgentProfile } from "@weft/types";
import type { AgentHost, ConversationView } from "../agents/agent-host.ts";
import type { EventHub } from "../events/event-hub.ts";
import type { UsageRepository } from "../usage/usage-repository.ts";

/** Where an agent case's conversation stands once its loop has stopped. */
export interface SettledConversation {
  view: ConversationView;
  /** The agent waits for a permission answer: its loop will not end by itself (the case fails, the loop is cancelled). */
  waitingPermission: boolean;
}

/** What an agent case needs of the agents domain and the usage records (wired in index.ts). */
export interface AgentCasePort {
  /** Sends a user message (to a new conversation when `conversationId` is absent), with this profile when given; the conversation's id. */
  send(agentId: string, profile: AgentProfile | undefined, message: string, conversationId: string | undefined, createdBy: string | undefined): Promise<string>;
  /** Resolves once the conversation's loop has stopped (ended, or waiting for a permission answer). */
  settled(conversationId: string): Promise<SettledConversation>;
  cancel(conversationId: string): Promise<void>;
  /** Tokens and cost of the conversation's LLM calls (null: a price is unknown). */
  usage(conversationId: string): Promise<{ tokens: number; costUsd: number | null }>;
}

/** A loop can stop without an `agent.finished` this process sees (another process, a permission prompt): the view is read again this often. */
const RECHECK_MS = 500;

/** Agent cases are ordinary conversations: sent through the agent host, awaited on the event hub. */
export function agentCasePort(deps: { agents: AgentHost; hub: EventHub; usage: UsageRepository }): AgentCasePort {
  const { agents } = deps;
  return {
    async send(agentId, profile, message, conversationId, createdBy) {
      if (profile === undefined) return (await agents.sendMessage(agentId, message, conversationId, createdBy)).conversationId;
      return (await agents.sendMessageAs(profile, message, conversationId, createdBy)).conversationId;
    },
    settled(conversationId) {
      return new Promise<SettledConversation>((resolve, reject) => {
        let done = false;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const check = async () => {
          if (done) return;
          const view = await agents.conversation(conversationId);
          const state = view.agent;
          const waitingPermission = state?.status === "waiting_permission";
          if (done || state === undefined || (state.running && !waitingPermission)) return;
          done = true;
          unsubscribe();
          if (timer) clearTimeout(timer);
          resolve({ view, waitingPermission });
        };
        const recheck = () => {
          check().then(() => {
            if (!done) timer = setTimeout(recheck, RECHECK_MS);
          }, reject);
        };
        const unsubscribe = deps.hub.subscribe(conversationId, (events) => {
          if (events.some((e) => e.type === "agent.finished" || e.type === "agent.permission.requested")) void check().catch(reject);
        });
        recheck();
      });
    },
    cancel: (conversationId) => agents.cancel(conversationId),
    async usage(conversationId) {
      const [row] = await deps.usage.report({ conversationId });
      if (!row || row.calls === 0) return { tokens: 0, costUsd: 0 };
      return { tokens: row.totalTokens, costUsd: row.unpricedCalls > 0 ? null : (row.costUsd ?? 0) };
    },
  };
}
