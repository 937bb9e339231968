import { DatabaseTaskStore } from "@a2a-js/sdk/server/database";
import type { ServerCallContext } from "@a2a-js/sdk/server";
import { createQueryDb } from "../storage/query-db.ts";
import type { SqlHandle } from "../storage/sql-handle.ts";
import { A2A_TASK_TABLE } from "./a2a-task-migrations.ts";

type Task = Parameters<DatabaseTaskStore["save"]>[0];
type ListRequest = Parameters<DatabaseTaskStore["list"]>[0];
type ListResponse = Awaited<ReturnType<DatabaseTaskStore["list"]>>;

/** How long a task stays readable after its last change: its conversation stays stored in Weft either way. */
export const TASK_RETENTION_MS = 30 * 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;

/**
 * One agent's A2A tasks, in the storage (SQLite or PostgreSQL) through the SDK's own `DatabaseTaskStore` on Weft's
 * Kysely connection: a task outlives the process and is read by any API process. The owner is the agent and the
 * user, so a task id sent to another agent, or by another user, is not found. Tasks untouched for 30 days are
 * deleted (at most one sweep an hour per process, on a save).
 */
export class StoredTaskStore {
  private readonly store: DatabaseTaskStore;
  private nextPrune = 0;

  constructor(
    private readonly sql: SqlHandle,
    agentId: string,
    private readonly now: () => number = Date.now,
  ) {
    this.store = new DatabaseTaskStore(createQueryDb(sql), {
      tableName: A2A_TASK_TABLE,
      ownerResolver: (context) => `${encodeURIComponent(agentId)}/${context.user?.userName ?? ""}`,
    });
  }

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return this.store.load(taskId, context);
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    await this.store.save(task, context);
    const now = this.now();
    if (now < this.nextPrune) return;
    this.nextPrune = now + PRUNE_EVERY_MS;
    await createQueryDb<Record<string, { status_last_updated: number }>>(this.sql)
      .deleteFrom(A2A_TASK_TABLE)
      .where("status_last_updated", "<", now - TASK_RETENTION_MS)
      .execute();
  }

  list(params: ListRequest, context: ServerCallContext): Promise<ListResponse> {
    return this.store.list(params, context);
  }
}
