import type { Database, Statement } from "bun:sqlite";
import { z } from "zod";
import { NodeErrorSchema, RunStatusSchema, WorkflowSchema, type NodeError, type RunStatus, type SecretRedactor, type Workflow } from "@weft/types";
import { num, optionalNum } from "./row-values.ts";

/** A run as stored and as the API shows it (times are epoch milliseconds). */
export const RunRecordSchema = z.object({
  id: z.string(),
  workflowId: z.string(),
  workflowRevision: z.number().int(),
  status: RunStatusSchema,
  inputs: z.record(z.string(), z.unknown()),
  outputs: z.record(z.string(), z.unknown()),
  error: NodeErrorSchema.optional(),
  /** The node this run was forced to re-run from (its upstream came from the cache). */
  rerunFrom: z.string().optional(),
  /** The run this one repeats (`POST /api/runs/:id/rerun`). */
  sourceRunId: z.string().optional(),
  /** The user who started the run (their account id); absent for runs from before accounts, or started by the system. */
  createdBy: z.string().optional(),
  createdAt: z.number(),
  startedAt: z.number().optional(),
  finishedAt: z.number().optional(),
  durationMs: z.number().optional(),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

/**
 * A run as lists show it: without its inputs and outputs (a run's values may be megabytes; a list of 500 runs
 * would carry them all to everyone who opens the history), its error's message cut to `SUMMARY_ERROR_CHARS`.
 * `GET /api/runs/:id` has the whole run.
 */
export type RunSummary = Omit<RunRecord, "inputs" | "outputs">;
/** An error message in a run list is cut to this many characters (the run itself has it whole). */
export const SUMMARY_ERROR_CHARS = 1000;

/** A change to a stored run: a status transition with what it brings. */
export interface RunUpdate {
  id: string;
  status: RunStatus;
  startedAt?: number;
  finishedAt?: number;
  durationMs?: number;
  outputs?: Record<string, unknown>;
  error?: NodeError;
}

export interface RunListQuery {
  workflowId?: string;
  status?: RunStatus;
  limit: number;
  /** Only runs created strictly before this time (for paging back through history). */
  before?: number;
}

export interface RunRepository {
  /**
   * Stores a new run with the exact workflow it runs (a snapshot, so a past run stays inspectable);
   * `undefined` for a workflow generated on the fly (an agent's single-node tool call).
   */
  create(record: RunRecord, workflow: Workflow | undefined): Promise<void>;
  get(id: string): Promise<RunRecord | undefined>;
  /** The workflow exactly as this run ran it; undefined when it was not kept. */
  getWorkflow(id: string): Promise<Workflow | undefined>;
  /** Newest first; summaries only (the inputs and outputs columns are not read). */
  list(query: RunListQuery): Promise<RunSummary[]>;
  update(update: RunUpdate): Promise<void>;
  /** Runs a previous process left queued or running. */
  listUnfinished(): Promise<RunRecord[]>;
}

/** A run's row as both engines read it (PostgreSQL hands its BIGINT times over as text). */
export interface RunRow {
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
  created_at: number | string;
  started_at: number | string | null;
  finished_at: number | string | null;
  duration_ms: number | null;
}

/** The columns of a RunRow, in the order `runInsertValues` answers them. */
export const RUN_COLUMNS = "id, workflow_id, workflow_revision, status, inputs, outputs, error, rerun_from, source_run_id, created_by, created_at, started_at, finished_at, duration_ms";

/** RUN_COLUMNS with the inputs and outputs left unread (empty objects), for lists. */
export const RUN_SUMMARY_COLUMNS = RUN_COLUMNS.replace("inputs, outputs", "'{}' AS inputs, '{}' AS outputs");

/** A run's summary from a row read with RUN_SUMMARY_COLUMNS. */
export function decodeRunSummary(row: RunRow): RunSummary {
  const { inputs: _inputs, outputs: _outputs, ...summary } = decodeRun(row);
  if (summary.error && summary.error.message.length > SUMMARY_ERROR_CHARS) {
    summary.error = { ...summary.error, message: `${summary.error.message.slice(0, SUMMARY_ERROR_CHARS)}… (cut; GET /api/runs/${summary.id} has it whole)` };
  }
  return summary;
}

export function decodeRun(row: RunRow): RunRecord {
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

/** A new run's values for RUN_COLUMNS and then `workflow` (its JSON text, "null" when not kept); runtime JSON redacted. */
export function runInsertValues(record: RunRecord, workflow: Workflow | undefined, redactor: SecretRedactor): Array<string | number | null> {
  return [
    record.id,
    record.workflowId,
    record.workflowRevision,
    record.status,
    redactor.json(JSON.stringify(record.inputs)),
    redactor.json(JSON.stringify(record.outputs)),
    record.error ? redactor.json(JSON.stringify(record.error)) : null,
    record.rerunFrom ?? null,
    record.sourceRunId ?? null,
    record.createdBy ?? null,
    record.createdAt,
    record.startedAt ?? null,
    record.finishedAt ?? null,
    record.durationMs ?? null,
    workflow === undefined ? "null" : JSON.stringify(workflow),
  ];
}

/** An update's values, in order: id, status, started_at, finished_at, duration_ms, outputs, error (null keeps the stored value). */
export function runUpdateValues(update: RunUpdate, redactor: SecretRedactor): Array<string | number | null> {
  return [
    update.id,
    update.status,
    update.startedAt ?? null,
    update.finishedAt ?? null,
    update.durationMs ?? null,
    update.outputs ? redactor.json(JSON.stringify(update.outputs)) : null,
    update.error ? redactor.json(JSON.stringify(update.error)) : null,
  ];
}

export class SqliteRunRepository implements RunRepository {
  private readonly insertStmt: Statement;
  private readonly selectOne: Statement<RunRow, [string]>;
  private readonly selectWorkflow: Statement<{ workflow: string }, [string]>;
  private readonly updateStmt: Statement;
  private readonly selectUnfinished: Statement<RunRow, []>;

  constructor(
    private readonly db: Database,
    private readonly redactor: SecretRedactor,
  ) {
    this.insertStmt = db.query(`INSERT INTO runs (${RUN_COLUMNS}, workflow) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.selectOne = db.query(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`);
    this.selectWorkflow = db.query("SELECT workflow FROM runs WHERE id = ?");
    this.updateStmt = db.query(
      `UPDATE runs SET status = ?2,
         started_at = coalesce(?3, started_at), finished_at = coalesce(?4, finished_at),
         duration_ms = coalesce(?5, duration_ms), outputs = coalesce(?6, outputs), error = coalesce(?7, error)
       WHERE id = ?1`,
    );
    this.selectUnfinished = db.query(`SELECT ${RUN_COLUMNS} FROM runs WHERE status IN ('queued', 'running') ORDER BY created_at`);
  }

  /** Synchronous form, for the batched writer's transaction. */
  createSync(record: RunRecord, workflow: Workflow | undefined): void {
    this.insertStmt.run(...runInsertValues(record, workflow, this.redactor));
  }

  async create(record: RunRecord, workflow: Workflow | undefined): Promise<void> {
    this.createSync(record, workflow);
  }

  async get(id: string): Promise<RunRecord | undefined> {
    const row = this.selectOne.get(id);
    return row ? decodeRun(row) : undefined;
  }

  async getWorkflow(id: string): Promise<Workflow | undefined> {
    const raw: unknown = JSON.parse(this.selectWorkflow.get(id)?.workflow ?? "null");
    return raw === null ? undefined : WorkflowSchema.parse(raw);
  }

  async list(query: RunListQuery): Promise<RunSummary[]> {
    const where: string[] = [];
    const params: Record<string, string | number> = { limit: query.limit };
    if (query.workflowId !== undefined) {
      where.push("workflow_id = $workflowId");
      params.workflowId = query.workflowId;
    }
    if (query.status !== undefined) {
      where.push("status = $status");
      params.status = query.status;
    }
    if (query.before !== undefined) {
      where.push("created_at < $before");
      params.before = query.before;
    }
    const sql = `SELECT ${RUN_SUMMARY_COLUMNS} FROM runs ${where.length ? "WHERE " + where.join(" AND ") : ""} ORDER BY created_at DESC, rowid DESC LIMIT $limit`;
    return (this.db.query(sql).all(params) as RunRow[]).map(decodeRunSummary);
  }

  /** Synchronous form, for the batched writer's transaction. */
  updateSync(update: RunUpdate): void {
    this.updateStmt.run(...runUpdateValues(update, this.redactor));
  }

  async update(update: RunUpdate): Promise<void> {
    this.updateSync(update);
  }

  async listUnfinished(): Promise<RunRecord[]> {
    return this.selectUnfinished.all().map(decodeRun);
  }
}
