import { WorkflowSchema, type SecretRedactor, type Workflow } from "@weft/types";
import {
  decodeRun,
  decodeRunSummary,
  RUN_COLUMNS,
  RUN_SUMMARY_COLUMNS,
  runInsertValues,
  runUpdateValues,
  type RunListQuery,
  type RunRecord,
  type RunRepository,
  type RunRow,
  type RunSummary,
  type RunUpdate,
} from "../run-repository.ts";
import type { PostgresConnection } from "./connection.ts";

/** Runs in PostgreSQL; `ord` (an identity) breaks ties of `created_at` in insertion order, as SQLite's rowid does. */
export class PostgresRunRepository implements RunRepository {
  constructor(
    private readonly pg: PostgresConnection,
    private readonly redactor: SecretRedactor,
  ) {}

  async create(record: RunRecord, workflow: Workflow | undefined): Promise<void> {
    await this.pg
      .current()
      .unsafe(`INSERT INTO runs (${RUN_COLUMNS}, workflow) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`, runInsertValues(record, workflow, this.redactor));
  }

  async get(id: string): Promise<RunRecord | undefined> {
    const [row] = await this.pg.current().unsafe<RunRow[]>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`, [id]);
    return row ? decodeRun(row) : undefined;
  }

  async getWorkflow(id: string): Promise<Workflow | undefined> {
    const [row] = await this.pg.current().unsafe<{ workflow: string }[]>("SELECT workflow FROM runs WHERE id = $1", [id]);
    const raw: unknown = JSON.parse(row?.workflow ?? "null");
    return raw === null ? undefined : WorkflowSchema.parse(raw);
  }

  async list(query: RunListQuery): Promise<RunSummary[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.workflowId !== undefined) where.push(`workflow_id = $${params.push(query.workflowId)}`);
    if (query.status !== undefined) where.push(`status = $${params.push(query.status)}`);
    if (query.before !== undefined) where.push(`created_at < $${params.push(query.before)}`);
    const limit = `$${params.push(query.limit)}`;
    const rows = await this.pg
      .current()
      .unsafe<RunRow[]>(`SELECT ${RUN_SUMMARY_COLUMNS} FROM runs ${where.length ? "WHERE " + where.join(" AND ") : ""} ORDER BY created_at DESC, ord DESC LIMIT ${limit}`, params);
    return rows.map(decodeRunSummary);
  }

  async update(update: RunUpdate): Promise<void> {
    await this.pg.current().unsafe(
      `UPDATE runs SET status = $2,
         started_at = coalesce($3, started_at), finished_at = coalesce($4, finished_at),
         duration_ms = coalesce($5, duration_ms), outputs = coalesce($6, outputs), error = coalesce($7, error)
       WHERE id = $1`,
      runUpdateValues(update, this.redactor),
    );
  }

  async listUnfinished(): Promise<RunRecord[]> {
    const rows = await this.pg.current().unsafe<RunRow[]>(`SELECT ${RUN_COLUMNS} FROM runs WHERE status IN ('queued', 'running') ORDER BY created_at, ord`);
    return rows.map(decodeRun);
  }
}
