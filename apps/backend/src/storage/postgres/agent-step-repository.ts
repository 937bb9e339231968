import type { AgentStepTrace, SecretRedactor } from "@weft/types";
import type { AgentStepRepository } from "../agent-step-repository.ts";
import type { PostgresConnection } from "./connection.ts";

export class PostgresAgentStepRepository implements AgentStepRepository {
  constructor(
    private readonly pg: PostgresConnection,
    private readonly redactor: SecretRedactor,
  ) {}

  async save(conversationId: string, steps: readonly AgentStepTrace[]): Promise<void> {
    if (steps.length === 0) return;
    // One row per step number: a step given twice in one call keeps its last copy (one INSERT cannot touch a row twice).
    const rows = new Map<number, { conversation_id: string; step: number; data: string }>();
    for (const step of steps) rows.set(step.step, { conversation_id: conversationId, step: step.step, data: this.redactor.json(JSON.stringify(step)) });
    const sql = this.pg.current();
    await sql`INSERT INTO agent_steps ${sql([...rows.values()])} ON CONFLICT (conversation_id, step) DO UPDATE SET data = excluded.data`;
  }

  async list(conversationId: string): Promise<AgentStepTrace[]> {
    const rows = await this.pg.current().unsafe<{ data: string }[]>("SELECT data FROM agent_steps WHERE conversation_id = $1 ORDER BY step", [conversationId]);
    return rows.map((r) => JSON.parse(r.data) as AgentStepTrace);
  }
}
