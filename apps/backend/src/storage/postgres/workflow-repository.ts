import { WorkflowSchema, type Workflow, type WorkflowSummary } from "@weft/types";
import { listReadable, type Listing } from "../document-table.ts";
import type { WorkflowRepository } from "../workflow-repository.ts";
import { SUMMARY_COLUMN_NAMES, summaryColumns, summaryFrom } from "../workflow-summary.ts";
import type { PostgresConnection } from "./connection.ts";
import { num } from "../row-values.ts";
import { PostgresDocumentTable } from "./document-table.ts";

interface SummaryRow {
  id: string;
  name: string;
  revision: number;
  updated_at: string | number;
  description: string;
  tags: string;
  node_count: number;
  is_skill: boolean;
  interface: string;
}

/** What a workflow's nodes call by id (`config.workflowId`), kept in `calls` for `callersOf`. */
function callsOf(workflow: Workflow): string {
  const calls: { type: string; workflowId: string }[] = [];
  for (const node of workflow.nodes) {
    const target = node.config?.workflowId;
    if (typeof target === "string") calls.push({ type: node.type, workflowId: target });
  }
  return JSON.stringify(calls);
}

/** The channel the `workflows` trigger announces added ("+id") and removed ("-id") workflow ids on. */
const ID_CHANNEL = "weft_workflows";
/** A full re-read of the ids besides the announcements, in case one was missed. */
const ID_REFRESH_MS = 60_000;

/**
 * Workflows in PostgreSQL: the summary columns and the calls are written with every workflow, so
 * the list and `callersOf` read columns only.
 */
export class PostgresWorkflowRepository extends PostgresDocumentTable<Workflow> implements WorkflowRepository {
  private known = new Set<string>();
  private refresher: ReturnType<typeof setInterval> | undefined;
  private subscription: { unlisten(): Promise<void> } | undefined;

  constructor(pg: PostgresConnection) {
    super(pg, "workflows", WorkflowSchema, {
      names: [...SUMMARY_COLUMN_NAMES, "calls"],
      values: (wf) => {
        const c = summaryColumns(wf);
        return [c.description, c.tags, c.nodeCount, c.isSkill, c.interface, callsOf(wf)];
      },
    });
  }

  /**
   * Loads the ids `isStored` answers from and follows what other processes commit (announced by a
   * trigger; the ids are read again whenever the listening connection (re)connects, and every minute).
   * Stopped by `close`.
   */
  async start(): Promise<void> {
    this.subscription = await this.pg.sql.listen(
      ID_CHANNEL,
      (payload) => this.announced(payload),
      () => void this.refreshIds().catch(() => undefined),
    );
    await this.refreshIds();
    this.refresher = setInterval(() => void this.refreshIds().catch(() => undefined), ID_REFRESH_MS);
    this.refresher.unref?.();
  }

  async close(): Promise<void> {
    if (this.refresher) clearInterval(this.refresher);
    await this.subscription?.unlisten();
  }

  private announced(payload: string): void {
    const id = payload.slice(1);
    if (payload.startsWith("+")) this.known.add(id);
    else if (payload.startsWith("-")) this.known.delete(id);
  }

  private async refreshIds(): Promise<void> {
    // On the pool, never inside a caller's transaction.
    const rows = await this.pg.sql<{ id: string }[]>`SELECT id FROM workflows`;
    this.known = new Set(rows.map((r) => r.id));
  }

  protected override written(id: string, stored: boolean): void {
    // Inside a transaction the write may still roll back: its commit's announcement tells.
    if (this.pg.inTransaction()) return;
    if (stored) this.known.add(id);
    else this.known.delete(id);
  }

  isStored(id: string): boolean {
    return this.known.has(id);
  }

  async callersOf(skillId: string, callingTypes: readonly string[]): Promise<{ id: string; name: string }[]> {
    const rows = await this.pg.current().unsafe<{ id: string; name: string }[]>(
      `SELECT id, name FROM workflows
       WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(calls::jsonb) AS c WHERE c ->> 'workflowId' = $1 AND c ->> 'type' IN (SELECT jsonb_array_elements_text($2::text::jsonb)))
       ORDER BY ${PostgresDocumentTable.ORDER}`,
      [skillId, JSON.stringify(callingTypes)],
    );
    return rows.map((r) => ({ id: r.id, name: r.name }));
  }

  async summaries(): Promise<Listing<WorkflowSummary>> {
    const rows = await this.pg
      .current()
      .unsafe<SummaryRow[]>(`SELECT id, name, revision, updated_at, description, tags, node_count, is_skill, interface FROM workflows ORDER BY ${PostgresDocumentTable.ORDER}`);
    return listReadable(rows, (row) =>
      summaryFrom({
        id: row.id,
        name: row.name,
        revision: row.revision,
        updatedAt: num(row.updated_at),
        columns: { description: row.description, tags: row.tags, nodeCount: row.node_count, isSkill: row.is_skill, interface: row.interface },
      }),
    );
  }
}
