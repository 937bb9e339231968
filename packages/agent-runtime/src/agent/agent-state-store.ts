import { AgentSessionStateSchema, type AgentSessionState, type AgentStateStore } from "@weft/types";

/** The agent's `AgentStateStore` in memory. */
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
