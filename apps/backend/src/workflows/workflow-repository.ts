import { sql } from "kysely";
import { isSkill, workflowInterface, WorkflowInterfaceSchema, WorkflowSchema, type Workflow, type WorkflowSummary } from "@weft/types";
import { z } from "zod";
import { decodeStoredJson, DocumentTable, listReadable, nameOrder, type Listing } from "../storage/document-table.ts";
import { flag, num } from "../storage/row-values.ts";
import type { PostgresHandle } from "../storage/sql-handle.ts";
import { preparedStatement } from "../storage/statement-cache.ts";
import type { StorageEngine } from "../storage/storage.ts";

/**
 * The workflow list's summary kept in columns beside the document (both engines), written with every
 * workflow write, so listing reads a few columns instead of decoding every stored workflow.
 */
function summaryColumns(workflow: Workflow) {
  return {
    description: workflow.description,
    /** JSON array of strings. */
    tags: JSON.stringify(workflow.tags),
    node_count: workflow.nodes.length,
    is_skill: isSkill(workflow),
    /** JSON of the WorkflowInterface. */
    interface: JSON.stringify(workflowInterface(workflow)),
  };
}

type SummaryColumns = ReturnType<typeof summaryColumns>;

const TagsSchema = z.array(z.string());

/** A summary from its stored columns (written by `summaryColumns`, so checked only for shape). */
function summaryFrom(row: { id: string; name: string; revision: number; updated_at: number | string }, columns: SummaryColumns): WorkflowSummary {
  return {
    id: row.id,
    name: row.name,
    description: columns.description,
    revision: row.revision,
    tags: TagsSchema.parse(JSON.parse(columns.tags)),
    nodeCount: columns.node_count,
    updatedAt: num(row.updated_at),
    isSkill: columns.is_skill,
    interface: WorkflowInterfaceSchema.parse(JSON.parse(columns.interface)),
  };
}

/** What a workflow's nodes call by id (`config.workflowId`), kept in `calls` for `callersOf` (PostgreSQL). */
function callsOf(workflow: Workflow): string {
  return JSON.stringify(workflow.nodes.flatMap(({ type, config }) => (typeof config?.workflowId === "string" ? [{ type, workflowId: config.workflowId }] : [])));
}

/** The channel the `workflows` trigger announces added ("+id") and removed ("-id") workflow ids on. */
const ID_CHANNEL = "weft_workflows";
/** A full re-read of the ids besides the announcements, in case one was missed. */
const ID_REFRESH_MS = 60_000;

/**
 * Workflows, with the list's summary columns written with every workflow (and, on PostgreSQL, what
 * they call, for `callersOf`). A SQLite row written before those columns existed (schema 7) is decoded
 * once by the list and its columns filled in.
 */
export class WorkflowTable extends DocumentTable<Workflow> {
  private known = new Set<string>();
  private refresher: ReturnType<typeof setInterval> | undefined;
  private subscription: { unlisten(): Promise<void> } | undefined;
  /** SQLite answers `isStored` from its file, synchronously: the statement compiled once. */
  private readonly isStoredSql: string;

  constructor(engine: StorageEngine) {
    super(engine, "workflows", WorkflowSchema, (wf) => {
      const columns = summaryColumns(wf);
      return engine.sql.engine === "postgres" ? { ...columns, calls: callsOf(wf) } : columns;
    });
    this.isStoredSql = this.db.selectFrom("workflows").select("id").where("id", "=", "").compile().sql;
  }

  /** PostgreSQL: loads the ids `isStored` answers from and follows other processes' commits. */
  async start(): Promise<void> {
    const handle = this.engine.sql;
    if (handle.engine !== "postgres") return;
    const refresh = () => void this.refreshIds(handle).catch(() => undefined);
    const announced = (payload: string) => (payload.startsWith("+") ? this.known.add(payload.slice(1)) : this.known.delete(payload.slice(1)));
    this.subscription = await handle.sql.listen(ID_CHANNEL, announced, refresh);
    await this.refreshIds(handle);
    this.refresher = setInterval(refresh, ID_REFRESH_MS);
    this.refresher.unref?.();
  }

  async close(): Promise<void> {
    if (this.refresher) clearInterval(this.refresher);
    await this.subscription?.unlisten();
  }

  private async refreshIds(handle: PostgresHandle): Promise<void> {
    // On the pool, never inside a caller's transaction.
    const rows = await handle.sql<{ id: string }[]>`SELECT id FROM workflows`;
    this.known = new Set(rows.map((r) => r.id));
  }

  protected override written(id: string, stored: boolean): void {
    // Inside a transaction the write may still roll back: its commit's announcement tells.
    if (this.engine.sql.engine !== "postgres" || this.engine.inTransaction()) return;
    if (stored) this.known.add(id);
    else this.known.delete(id);
  }

  /**
   * Whether a workflow of that id is stored, synchronously, for the validators' skill check. SQLite:
   * exact. PostgreSQL: from this process's writes and the ids other processes' commits announce, so a
   * workflow another process created is known a moment (one notification) after its commit.
   */
  isStored(id: string): boolean {
    switch (this.engine.sql.engine) {
      case "sqlite":
        return preparedStatement(this.engine.sql.db, this.isStoredSql).statement.get(id) !== null;
      case "postgres":
        return this.known.has(id);
    }
  }

  /** The workflows with a node that calls `skillId` (`config.workflowId` of one of `callingTypes`), by name. */
  async callersOf(skillId: string, callingTypes: readonly string[]): Promise<{ id: string; name: string }[]> {
    const types = JSON.stringify(callingTypes);
    // The calling types come as a JSON array, so one statement serves any list of them.
    const calls =
      this.engine.sql.engine === "sqlite"
        ? sql<boolean>`json_valid(data) AND json_type(data, '$.nodes') = 'array' AND EXISTS (
            SELECT 1 FROM json_each(data, '$.nodes') AS node
            WHERE node.value ->> '$.config.workflowId' = ${skillId} AND node.value ->> '$.type' IN (SELECT value FROM json_each(${types})))`
        : sql<boolean>`EXISTS (SELECT 1 FROM jsonb_array_elements(calls::jsonb) AS c
            WHERE c ->> 'workflowId' = ${skillId} AND c ->> 'type' IN (SELECT jsonb_array_elements_text(${types}::text::jsonb)))`;
    return await this.db.selectFrom("workflows").select(["id", "name"]).where(calls).orderBy(nameOrder(this.engine.sql.engine)).execute();
  }

  /** Every stored workflow's summary, by name then id; a record that does not read is left out and reported. */
  async summaries(): Promise<Listing<WorkflowSummary>> {
    const rows = await this.db
      .selectFrom("workflows")
      // `data` only for rows whose summary is not filled in yet.
      .select(["id", "name", "revision", "updated_at", "description", "tags", "node_count", "is_skill", "interface", sql<string | null>`CASE WHEN node_count IS NULL THEN data END`.as("data")])
      .orderBy(nameOrder(this.engine.sql.engine))
      .execute();
    const filled: Array<{ id: string; revision: number; columns: SummaryColumns }> = [];
    const listing = listReadable(rows, (row) => {
      const unfilled = row.node_count === null || row.description === null || row.tags === null || row.is_skill === null || row.interface === null;
      const columns = unfilled
        ? summaryColumns(decodeStoredJson("workflows record", row.id, row.data ?? "", WorkflowSchema))
        : { description: String(row.description), tags: String(row.tags), node_count: Number(row.node_count), is_skill: flag(row.is_skill as number | boolean), interface: String(row.interface) };
      if (unfilled) filled.push({ id: row.id, revision: row.revision, columns });
      return summaryFrom(row, columns);
    });
    for (const fill of filled) await this.db.updateTable("workflows").set(fill.columns).where("id", "=", fill.id).where("revision", "=", fill.revision).execute();
    return listing;
  }
}

/** The storage workflows/ needs. */
export interface WorkflowsStorage {
  readonly workflows: WorkflowTable;
}
