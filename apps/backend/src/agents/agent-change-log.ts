import type { Generated } from "kysely";
import { AgentChangeSchema, type AgentChange } from "@weft/types";
import type { Migration } from "../storage/migrations.ts";
import { decodeStoredJson, listReadable } from "../storage/document-table.ts";
import { ddlStep } from "../storage/ddl.ts";
import { Table, type TableEngine } from "../storage/table.ts";

/** The change log's table (a SQLite file of e5dc891 has it as `module_schema` ('agent-changes', 1)). */
export const AGENT_CHANGE_MIGRATIONS: readonly Migration[] = [
  ddlStep("agent-changes-001 who changed agent profiles", ({ pg, time }) => [
    `CREATE TABLE agent_changes (seq ${pg ? "bigserial PRIMARY KEY" : "integer PRIMARY KEY AUTOINCREMENT"}, agent_id text NOT NULL, at ${time} NOT NULL, data text NOT NULL)`,
    `CREATE INDEX agent_changes_by_agent ON agent_changes (agent_id, seq)`,
  ]),
];

/** Who changed which agent profile, when, and what its tools, skills and rules became; kept for good (nothing is pruned). */
export class AgentChangeLog extends Table<{ agent_changes: { seq: Generated<number>; agent_id: string; at: number; data: string } }, TableEngine> {
  async record(change: AgentChange): Promise<void> {
    await this.insertRows("agent_changes", [{ agent_id: change.agentId, at: change.at, data: JSON.stringify(change) }]);
  }

  /** The agent's changes, newest first (an id deleted and created again keeps its whole history). */
  async list(agentId: string, limit: number): Promise<AgentChange[]> {
    const rows = await this.db.selectFrom("agent_changes").select("data").where("agent_id", "=", agentId).orderBy("seq", "desc").limit(limit).execute();
    // A record that no longer reads is left out rather than breaking the history.
    return listReadable(rows, (row) => decodeStoredJson("change of agent", agentId, row.data, AgentChangeSchema)).items;
  }
}
