import type { Generated, Kysely } from "kysely";
import { AgentChangeSchema, type AgentChange } from "@weft/types";
import type { Migration } from "../storage/migrations.ts";
import { createQueryDb } from "../storage/query-db.ts";
import type { SqlHandle } from "../storage/sql-handle.ts";

/** Who changed which agent profile, when, and what its tools, skills and rules became; kept for good (nothing is pruned). */
export interface AgentChangeLog {
  record(change: AgentChange): Promise<void>;
  /** The agent's changes, newest first (an id deleted and created again keeps its whole history). */
  list(agentId: string, limit: number): Promise<AgentChange[]>;
}

interface ChangeTables {
  agent_changes: { seq: Generated<number>; agent_id: string; at: number; data: string };
}

/** The change log's table (a SQLite file of e5dc891 has it as `module_schema` ('agent-changes', 1)). */
export const AGENT_CHANGE_MIGRATIONS: readonly Migration[] = [
  {
    id: "agent-changes-001 who changed agent profiles",
    async up(db, engine) {
      await db.schema
        .createTable("agent_changes")
        .$call((t) => (engine === "sqlite" ? t.addColumn("seq", "integer", (c) => c.primaryKey().autoIncrement()) : t.addColumn("seq", "bigserial", (c) => c.primaryKey())))
        .addColumn("agent_id", "text", (c) => c.notNull())
        .addColumn("at", engine === "sqlite" ? "integer" : "bigint", (c) => c.notNull())
        .addColumn("data", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("agent_changes_by_agent").on("agent_changes").columns(["agent_id", "seq"]).execute();
    },
  },
];

class SqlAgentChangeLog implements AgentChangeLog {
  constructor(private readonly db: Kysely<ChangeTables>) {}

  async record(change: AgentChange): Promise<void> {
    await this.db
      .insertInto("agent_changes")
      .values({ agent_id: change.agentId, at: change.at, data: JSON.stringify(change) })
      .execute();
  }

  async list(agentId: string, limit: number): Promise<AgentChange[]> {
    const rows = await this.db.selectFrom("agent_changes").select("data").where("agent_id", "=", agentId).orderBy("seq", "desc").limit(limit).execute();
    // A record that no longer reads is left out rather than breaking the history.
    return rows.flatMap((row) => {
      const parsed = AgentChangeSchema.safeParse(JSON.parse(row.data));
      return parsed.success ? [parsed.data] : [];
    });
  }
}

/** The change log on the storage's connection (its table comes with AGENT_CHANGE_MIGRATIONS). */
export function openAgentChangeLog(handle: SqlHandle): AgentChangeLog {
  return new SqlAgentChangeLog(createQueryDb<ChangeTables>(handle));
}
