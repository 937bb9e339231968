import { AgentSessionStateSchema, type AgentSessionState } from "@weft/types";

/**
 * Where an agent keeps what it needs to continue a conversation (private state, pending question,
 * step and event counters): in memory here, in the backend's database behind the same interface.
 */
export interface AgentStateStore {
  load(conversationId: string): Promise<AgentSessionState | undefined>;
  save(state: AgentSessionState): Promise<void>;
}

export class InMemoryAgentStateStore implements AgentStateStore {
  private readonly states = new Map<string, string>();

  async load(conversationId: string): Promise<AgentSessionState | undefined> {
    const json = this.states.get(conversationId);
    return json === undefined ? undefined : AgentSessionStateSchema.parse(JSON.parse(json));
  }

  /** Validated and copied, so later changes to the live state do not leak in. */
  async save(state: AgentSessionState): Promise<void> {
    this.states.set(state.conversationId, JSON.stringify(AgentSessionStateSchema.parse(state)));
  }
}
