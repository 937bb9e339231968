import { RunStatusSchema, WorkflowSchema, type NodeError, type SecretRedactor, type Workflow } from "@weft/types";
import type { RunListQuery, RunRecord, RunRepository, RunUpdate } from "../run-repository.ts";
import { num, optionalNum, type PostgresConnection } from "./connection.ts";

interface Row {
  id: string;
  workflow_id: string;
  workflow_revision: number;
  status: string;
  inputs: string;
  outputs: string;
  error: string | null;
  rerun_from: string | null;
  source_run_id: string | null;
  created_by: string | null;
  created_at: string | number;
  started_at: string | number | null;
  finished_at: string | number | null;
  duration_ms: number | null;
}

const COLUMNS = "id, workflow_id, workflow_revision, status, inputs, outputs, error, rerun_from, source_run_id, created_by, created_at, started_at, finished_at, duration_ms";

function decode(row: Row): RunRecord {
  const record: RunRecord = {
    id: row.id,
    workflowId: row.workflow_id,
    workflowRevision: row.workflow_revision,
    status: RunStatusSchema.parse(row.status),
    inputs: JSON.parse(row.inputs) as Record<string, unknown>,
    outputs: JSON.parse(row.outputs) as Record<string, unknown>,
    createdAt: num(row.created_at),
  };
  if (row.error !== null) record.error = JSON.parse(row.error) as NodeError;
  if (row.rerun_from !== null) record.rerunFrom = row.rerun_from;
  if (row.source_run_id !== null) record.sourceRunId = row.source_run_id;
  if (row.created_by !== null) record.createdBy = row.created_by;
  const startedAt = optionalNum(row.started_at);
  const finishedAt = optionalNum(row.finished_at);
  if (startedAt !== undefined) record.startedAt = startedAt;
  if (finishedAt !== undefined) record.finishedAt = finishedAt;
  if (row.duration_ms !== null) record.durationMs = row.duration_ms;
  return record;
}

/** Runs in PostgreSQL; `ord` (an identity) breaks ties of `created_at` in insertion order, as SQLite's rowid does. */
export class PostgresRunRepository implements RunRepository {
  constructor(
    private readonly pg: PostgresConnection,
    private readonly redactor: SecretRedactor,
  ) {}

  async create(record: RunRecord, workflow: Workflow | undefined): Promise<void> {
    await this.pg
      .current()
      .unsafe(`INSERT INTO runs (${COLUMNS}, workflow) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`, [
        record.id,
        record.workflowId,
        record.workflowRevision,
        record.status,
        this.redactor.json(JSON.stringify(record.inputs)),
        this.redactor.json(JSON.stringify(record.outputs)),
        record.error ? this.redactor.json(JSON.stringify(record.error)) : null,
        record.rerunFrom ?? null,
        record.sourceRunId ?? null,
        record.createdBy ?? null,
        record.createdAt,
        record.startedAt ?? null,
        record.finishedAt ?? null,
        record.durationMs ?? null,
        workflow === undefined ? "null" : JSON.stringify(workflow),
      ]);
  }

  async get(id: string): Promise<RunRecord | undefined> {
    const [row] = await this.pg.current().unsafe<Row[]>(`SELECT ${COLUMNS} FROM runs WHERE id = $1`, [id]);
    return row ? decode(row) : undefined;
  }

  async getWorkflow(id: string): Promise<Workflow | undefined> {
    const [row] = await this.pg.current().unsafe<{ workflow: string }[]>("SELECT workflow FROM runs WHERE id = $1", [id]);
    const raw: unknown = JSON.parse(row?.workflow ?? "null");
    return raw === null ? undefined : WorkflowSchema.parse(raw);
  }

  async list(query: RunListQuery): Promise<RunRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.workflowId !== undefined) where.push(`workflow_id = $${params.push(query.workflowId)}`);
    if (query.status !== undefined) where.push(`status = $${params.push(query.status)}`);
    if (query.before !== undefined) where.push(`created_at < $${params.push(query.before)}`);
    const limit = `$${params.push(query.limit)}`;
    const rows = await this.pg.current().unsafe<Row[]>(`SELECT ${COLUMNS} FROM runs ${where.length ? "WHERE " + where.join(" AND ") : ""} ORDER BY created_at DESC, ord DESC LIMIT ${limit}`, params);
    return rows.map(decode);
  }

  async update(update: RunUpdate): Promise<void> {
    await this.pg.current().unsafe(
      `UPDATE runs SET status = $2,
         started_at = coalesce($3, started_at), finished_at = coalesce($4, finished_at),
         duration_ms = coalesce($5, duration_ms), outputs = coalesce($6, outputs), error = coalesce($7, error)
       WHERE id = $1`,
      [
        update.id,
        update.status,
        update.startedAt ?? null,
        update.finishedAt ?? null,
        update.durationMs ?? null,
        update.outputs ? this.redactor.json(JSON.stringify(update.outputs)) : null,
        update.error ? this.redactor.json(JSON.stringify(update.error)) : null,
      ],
    );
  }

  async listUnfinished(): Promise<RunRecord[]> {
    const rows = await this.pg.current().unsafe<Row[]>(`SELECT ${COLUMNS} FROM runs WHERE status IN ('queued', 'running') ORDER BY created_at, ord`);
    return rows.map(decode);
  }
}
