import type { Database, Statement } from "bun:sqlite";
import type { AgentStepTrace, SecretRedactor } from "@weft/types";

/** The recorded deliberation steps of agent conversations (seed 004 §3.3 "logging"). */
export interface AgentStepRepository {
  /** Stores steps by their number; a step stored again (a retried save) replaces the earlier copy. */
  save(conversationId: string, steps: readonly AgentStepTrace[]): Promise<void>;
  list(conversationId: string): Promise<AgentStepTrace[]>;
}

export class SqliteAgentStepRepository implements AgentStepRepository {
  private readonly select: Statement<{ data: string }, [string]>;
  private readonly upsert: Statement<unknown, [string, number, string]>;

  constructor(
    private readonly db: Database,
    private readonly redactor: SecretRedactor,
  ) {
    this.select = db.query("SELECT data FROM agent_steps WHERE conversation_id = ? ORDER BY step");
    this.upsert = db.query("INSERT INTO agent_steps (conversation_id, step, data) VALUES (?, ?, ?) ON CONFLICT (conversation_id, step) DO UPDATE SET data = excluded.data");
  }

  async save(conversationId: string, steps: readonly AgentStepTrace[]): Promise<void> {
    this.db.transaction(() => {
      for (const step of steps) this.upsert.run(conversationId, step.step, this.redactor.json(JSON.stringify(step)));
    })();
  }

  async list(conversationId: string): Promise<AgentStepTrace[]> {
    return this.select.all(conversationId).map((r) => JSON.parse(r.data) as AgentStepTrace);
  }
}
