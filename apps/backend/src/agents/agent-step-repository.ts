import type { AgentStepTrace } from "@weft/types";
import { Table } from "../storage/table.ts";

/** The recorded deliberation steps of agent conversations (seed 004 §3.3 "logging"). */
export class AgentStepTable extends Table<{ agent_steps: { conversation_id: string; step: number; data: string } }> {
  /**
   * Stores steps by their number; a step stored again (a retried save) replaces the earlier copy. One statement: a
   * step given twice in one call keeps its last copy (one INSERT cannot touch a row twice).
   */
  async save(conversationId: string, steps: readonly AgentStepTrace[]): Promise<void> {
    const rows = new Map(steps.map((step) => [step.step, { conversation_id: conversationId, step: step.step, data: this.redact(step) }]));
    if (rows.size > 0) await this.upsertRows("agent_steps", ["conversation_id", "step"], [...rows.values()]);
  }

  async list(conversationId: string): Promise<AgentStepTrace[]> {
    const rows = await this.db.selectFrom("agent_steps").select("data").where("conversation_id", "=", conversationId).orderBy("step").execute();
    return rows.map((r) => JSON.parse(r.data) as AgentStepTrace);
  }
}
