import { DatabaseTaskStore } from "@a2a-js/sdk/server/database";
import type { ServerCallContext } from "@a2a-js/sdk/server";
import type { Kysely } from "kysely";
import { createQueryDb } from "../storage/query-db.ts";
import type { SqlHandle } from "../storage/sql-handle.ts";
import { A2A_TASK_TABLE, type A2aTaskTables } from "./a2a-task-migrations.ts";

type Task = Parameters<DatabaseTaskStore["save"]>[0];
type ListRequest = Parameters<DatabaseTaskStore["list"]>[0];
type ListResponse = Awaited<ReturnType<DatabaseTaskStore["list"]>>;

/** How long a task stays readable after its last change: its conversation stays stored in Weft either way. */
export const TASK_RETENTION_MS = 30 * 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;

/** The `a2a_tasks` table on the storage's connection: one query layer (Kysely, query-db.ts) for the SDK's store and Weft's sweep. */
export class A2aTaskTable {
  readonly db: Kysely<A2aTaskTables>;
  private nextPrune = 0;

  constructor(
    sql: SqlHandle,
    private readonly now: () => number = Date.now,
  ) {
    this.db = createQueryDb<A2aTaskTables>(sql);
  }

  /** Deletes tasks untouched for TASK_RETENTION_MS, at most one sweep every PRUNE_EVERY_MS per process. */
  async pruneIfDue(): Promise<void> {
    const now = this.now();
    if (now < this.nextPrune) return;
    this.nextPrune = now + PRUNE_EVERY_MS;
    await this.db
      .deleteFrom(A2A_TASK_TABLE)
      .where("status_last_updated", "<", now - TASK_RETENTION_MS)
      .execute();
  }
}

/**
 * One agent's A2A tasks, in the storage (SQLite or PostgreSQL) through the SDK's own `DatabaseTaskStore` on the
 * table's Kysely: a task outlives the process and is read by any API process. The owner is the agent and the
 * user, so a task id sent to another agent, or by another user, is not found. Tasks untouched for 30 days are
 * deleted (at most one sweep an hour per process, on a save).
 */
export class StoredTaskStore {
  private readonly store: DatabaseTaskStore<A2aTaskTables>;

  constructor(
    private readonly table: A2aTaskTable,
    agentId: string,
  ) {
    this.store = new DatabaseTaskStore(table.db, {
      tableName: A2A_TASK_TABLE,
      ownerResolver: (context) => `${encodeURIComponent(agentId)}/${context.user?.userName ?? ""}`,
    });
  }

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return this.store.load(taskId, context);
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    await this.store.save(task, context);
    await this.table.pruneIfDue();
  }

  list(params: ListRequest, context: ServerCallContext): Promise<ListResponse> {
    return this.store.list(params, context);
  }
}
