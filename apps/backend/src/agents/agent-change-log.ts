import { AgentChangeSchema, type AgentChange } from "@weft/types";
import type { PostgresMigration } from "../storage/postgres/migrations.ts";
import type { PostgresHandle, SqlHandle, SqliteHandle } from "../storage/sql-handle.ts";

/** Who changed which agent profile, when, and what its tools, skills and rules became; kept for good (nothing is pruned). */
export interface AgentChangeLog {
  record(change: AgentChange): Promise<void>;
  /** The agent's changes, newest first (an id deleted and created again keeps its whole history). */
  list(agentId: string, limit: number): Promise<AgentChange[]>;
}

interface Row {
  data: string;
}

function decode(rows: Row[]): AgentChange[] {
  // A record that no longer reads is left out rather than breaking the history.
  return rows.flatMap((row) => {
    const parsed = AgentChangeSchema.safeParse(JSON.parse(row.data));
    return parsed.success ? [parsed.data] : [];
  });
}

const SQLITE_MODULE = "agent-changes";

/** Its own version row in `module_schema` (as the accounts' tables), so it never competes with the storage's numbered migrations. */
const SQLITE_MIGRATIONS: { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE agent_changes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_id TEXT NOT NULL,
        at INTEGER NOT NULL,
        data TEXT NOT NULL
      );
      CREATE INDEX agent_changes_by_agent ON agent_changes (agent_id, seq);
    `,
  },
];

/** The change log's PostgreSQL table, applied with every other module's by storage/postgres/migrations.ts. */
export const AGENT_CHANGES_POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    id: "agent-changes-001 who changed agent profiles",
    sql: `
      CREATE TABLE agent_changes (
        seq BIGSERIAL PRIMARY KEY,
        agent_id TEXT NOT NULL,
        at BIGINT NOT NULL,
        data TEXT NOT NULL
      );
      CREATE INDEX agent_changes_by_agent ON agent_changes (agent_id, seq);
    `,
  },
];

class SqliteAgentChangeLog implements AgentChangeLog {
  constructor(private readonly handle: SqliteHandle) {
    const { db } = handle;
    db.exec("CREATE TABLE IF NOT EXISTS module_schema (module TEXT PRIMARY KEY, version INTEGER NOT NULL)");
    const current = (db.query("SELECT version FROM module_schema WHERE module = ?").get(SQLITE_MODULE) as { version: number } | null)?.version ?? 0;
    for (const step of SQLITE_MIGRATIONS) {
      if (step.version <= current) continue;
      db.transaction(() => {
        db.exec(step.sql);
        db.query("INSERT INTO module_schema (module, version) VALUES (?, ?) ON CONFLICT (module) DO UPDATE SET version = excluded.version").run(SQLITE_MODULE, step.version);
      })();
    }
  }

  async record(change: AgentChange): Promise<void> {
    await this.handle.gate(() => this.handle.db.query("INSERT INTO agent_changes (agent_id, at, data) VALUES (?, ?, ?)").run(change.agentId, change.at, JSON.stringify(change)));
  }

  async list(agentId: string, limit: number): Promise<AgentChange[]> {
    return decode(await this.handle.gate(() => this.handle.db.query("SELECT data FROM agent_changes WHERE agent_id = ? ORDER BY seq DESC LIMIT ?").all(agentId, limit) as Row[]));
  }
}

class PostgresAgentChangeLog implements AgentChangeLog {
  constructor(private readonly handle: PostgresHandle) {}

  async record(change: AgentChange): Promise<void> {
    await this.handle.current()`INSERT INTO agent_changes (agent_id, at, data) VALUES (${change.agentId}, ${change.at}, ${JSON.stringify(change)})`;
  }

  async list(agentId: string, limit: number): Promise<AgentChange[]> {
    const rows: Row[] = await this.handle.current()`SELECT data FROM agent_changes WHERE agent_id = ${agentId} ORDER BY seq DESC LIMIT ${limit}`;
    return decode(rows);
  }
}

/** The change log on the storage's engine (on PostgreSQL its table comes with the storage's migrations). */
export function openAgentChangeLog(handle: SqlHandle): AgentChangeLog {
  switch (handle.engine) {
    case "sqlite":
      return new SqliteAgentChangeLog(handle);
    case "postgres":
      return new PostgresAgentChangeLog(handle);
    default: {
      const unknown: never = handle;
      throw new Error(`unknown storage engine ${JSON.stringify(unknown)}`);
    }
  }
}
