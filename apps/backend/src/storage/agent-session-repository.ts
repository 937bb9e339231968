import type { Database, Statement } from "bun:sqlite";
import { AgentSessionStateSchema, type AgentSessionState, type AgentStateStore, type SecretRedactor } from "@weft/types";

/** What an agent needs to continue a conversation (counters, private state, a pending question). */
export type AgentSessionRepository = AgentStateStore;

export class SqliteAgentSessionRepository implements AgentSessionRepository {
  private readonly select: Statement<{ data: string }, [string]>;
  private readonly upsert: Statement<unknown, [string, string, string, number]>;

  constructor(
    db: Database,
    private readonly redactor: SecretRedactor,
  ) {
    this.select = db.query("SELECT data FROM agent_sessions WHERE conversation_id = ?");
    this.upsert = db.query(
      "INSERT INTO agent_sessions (conversation_id, agent_id, data, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (conversation_id) DO UPDATE SET agent_id = excluded.agent_id, data = excluded.data, updated_at = excluded.updated_at",
    );
  }

  async load(conversationId: string): Promise<AgentSessionState | undefined> {
    const row = this.select.get(conversationId);
    return row ? AgentSessionStateSchema.parse(JSON.parse(row.data)) : undefined;
  }

  async save(state: AgentSessionState): Promise<void> {
    const valid = AgentSessionStateSchema.parse(state);
    this.upsert.run(valid.conversationId, valid.agentId, this.redactor.json(JSON.stringify(valid)), valid.updatedAt);
  }
}
