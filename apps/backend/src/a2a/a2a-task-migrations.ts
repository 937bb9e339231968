import type { Migration } from "../storage/migrations.ts";
import { ddl, type Int64Column } from "../storage/ddl.ts";

/** The table the SDK's `DatabaseTaskStore` reads and writes (a2a-task-store.ts). */
export const A2A_TASK_TABLE = "a2a_tasks";

/** Its columns as Kysely types them (the SDK writes them; Weft itself only deletes old rows by `status_last_updated`). */
export interface A2aTaskTables {
  a2a_tasks: {
    tenant: string;
    owner: string;
    id: string;
    context_id: string;
    status_last_updated: Int64Column;
    status_state: string | null;
    status: string | null;
    artifacts: string | null;
    history: string | null;
    metadata: string | null;
    protocol_version: string | null;
  };
}

/**
 * A2A tasks, stored so that `tasks/get` answers after a restart and on another API process. The columns are the
 * ones `@a2a-js/sdk`'s `DatabaseTaskStore` expects (its `a2a-db` CLI would create the same table); `owner` holds the
 * agent and the user, so one agent's task is never another's.
 */
export const A2A_TASK_MIGRATIONS: readonly Migration[] = [
  {
    id: "a2a-001 tasks",
    async up(db, engine) {
      const { int64, run } = ddl(db, engine);
      await run(
        `CREATE TABLE ${A2A_TASK_TABLE} (tenant text NOT NULL, owner text NOT NULL, id text NOT NULL, context_id text NOT NULL, status_last_updated ${int64} NOT NULL, status_state text, status text, artifacts text, history text, metadata text, protocol_version text, PRIMARY KEY (tenant, owner, id))`,
        `CREATE INDEX a2a_tasks_scope_updated ON ${A2A_TASK_TABLE} (tenant, owner, status_last_updated, id)`,
        `CREATE INDEX a2a_tasks_scope_context_updated ON ${A2A_TASK_TABLE} (tenant, owner, context_id, status_last_updated, id)`,
        `CREATE INDEX a2a_tasks_updated ON ${A2A_TASK_TABLE} (status_last_updated)`,
      );
    },
  },
];
