import { AgentSessionStateSchema, type AgentSessionState, type AgentStateStore } from "@weft/types";
import { Table } from "../storage/table.ts";

export class AgentSessionTable extends Table<{ agent_sessions: { conversation_id: string; agent_id: string; data: string; updated_at: number } }> implements AgentStateStore {
  async load(conversationId: string): Promise<AgentSessionState | undefined> {
    const row = await this.db.selectFrom("agent_sessions").select("data").where("conversation_id", "=", conversationId).executeTakeFirst();
    return row ? AgentSessionStateSchema.parse(JSON.parse(row.data)) : undefined;
  }

  async save(state: AgentSessionState): Promise<void> {
    const valid = AgentSessionStateSchema.parse(state);
    await this.upsertRows("agent_sessions", ["conversation_id"], [{ conversation_id: valid.conversationId, agent_id: valid.agentId, data: this.redact(valid), updated_at: valid.updatedAt }]);
  }
}
