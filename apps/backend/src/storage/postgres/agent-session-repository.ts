import { AgentSessionStateSchema, type AgentSessionState, type SecretRedactor } from "@weft/types";
import type { AgentSessionRepository } from "../agent-session-repository.ts";
import type { PostgresConnection } from "./connection.ts";

export class PostgresAgentSessionRepository implements AgentSessionRepository {
  constructor(
    private readonly pg: PostgresConnection,
    private readonly redactor: SecretRedactor,
  ) {}

  async load(conversationId: string): Promise<AgentSessionState | undefined> {
    const [row] = await this.pg.current().unsafe<{ data: string }[]>("SELECT data FROM agent_sessions WHERE conversation_id = $1", [conversationId]);
    return row ? AgentSessionStateSchema.parse(JSON.parse(row.data)) : undefined;
  }

  async save(state: AgentSessionState): Promise<void> {
    const valid = AgentSessionStateSchema.parse(state);
    await this.pg
      .current()
      .unsafe(
        "INSERT INTO agent_sessions (conversation_id, agent_id, data, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT (conversation_id) DO UPDATE SET agent_id = excluded.agent_id, data = excluded.data, updated_at = excluded.updated_at",
        [valid.conversationId, valid.agentId, this.redactor.json(JSON.stringify(valid)), valid.updatedAt],
      );
  }
}
