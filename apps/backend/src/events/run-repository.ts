import { sql } from "kysely";
import { LRUCache } from "lru-cache";
import { z } from "zod";
import { NodeErrorSchema, RunStatusSchema, RunTriggerSchema, WorkflowSchema, type NodeError, type RunStatus, type Workflow } from "@weft/types";
import { num, optionalJson, optionalNum, present } from "../storage/row-values.ts";
import { slotsOf } from "../storage/prepared-query.ts";
import { parseRunWorkflow } from "./run-workflow-snapshot.ts";
import { isPinnedSnapshot, pinnedSnapshot, readPinnedSnapshot, type PinnedRun } from "./run-workflow-base.ts";
import { RunInsertBatch } from "./run-insert-batch.ts";
import { hydratePayloads, PAYLOAD_REF_KEY, type PayloadBlob } from "./payload-refs.ts";
import { PayloadStore } from "./payload-store.ts";
import { rowsByIds, Table } from "../storage/table.ts";

/** What a fork changed at its node (`POST /api/runs/:id/fork`); everything else came from the forked run's record. */
export const ForkChangesSchema = z.object({
  /** Merged over the node's config. */
  settings: z.record(z.string(), z.unknown()).optional(),
  /** Literal values of the node's input ports (an edge into such a port was removed). */
  inputs: z.record(z.string(), z.unknown()).optional(),
  /** Outputs pinned by node id: those nodes hand these on instead of their recorded outputs. */
  pins: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
});
export type ForkChanges = z.infer<typeof ForkChangesSchema>;

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
  /** The run and node this run forks: what does not depend on that node (or a pin) is taken from that run's record. */
  forkOf: z.object({ runId: z.string(), nodeId: z.string() }).optional(),
  /** What the fork changed (with `forkOf`). */
  forkChanges: ForkChangesSchema.optional(),
  /** The user who started the run (their account id); absent for runs from before accounts, or started by the system. */
  createdBy: z.string().optional(),
  /** What started the run from outside (a webhook); absent when a person, the API or an agent did. */
  trigger: RunTriggerSchema.optional(),
  createdAt: z.number(),
  startedAt: z.number().optional(),
  finishedAt: z.number().optional(),
  durationMs: z.number().optional(),
  /** The version of the workflow it ran (GET /api/workflows/:id/versions/:n); absent for a draft no save has, or a run from before versions. */
  workflowVersion: z.number().int().optional(),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

/** A run as lists show it: without its inputs and outputs (they may be megabytes), its error's message cut. */
export type RunSummary = Omit<RunRecord, "inputs" | "outputs">;
/** An error message in a run list is cut to this many characters (the run itself has it whole). */
export const SUMMARY_ERROR_CHARS = 1000;

/** A change to a stored run: a status transition with what it brings. */
export type RunUpdate = Pick<RunRecord, "id" | "status"> & Partial<Pick<RunRecord, "startedAt" | "finishedAt" | "durationMs" | "outputs" | "error">>;

export interface RunListQuery {
  workflowId?: string;
  status?: RunStatus;
  limit: number;
  /** Only runs created strictly before this time (for paging back through history). */
  before?: number;
}

/** What the runs' users call (one implementation, for both engines). */
export type RunRepository = Pick<RunTable, keyof RunTable>;

/** A run's record and the workflow exactly as it ran it (undefined when not kept). */
export interface RunWithWorkflow {
  record: RunRecord;
  workflow: Workflow | undefined;
}

/** A run's stored status once it has ended: nothing changes it after. */
export const ENDED_STATUSES = ["completed", "failed", "cancelled", "interrupted", "budget_exceeded"] as const satisfies readonly RunRecord["status"][];

/** Times a run's row keeps as BIGINT, which PostgreSQL answers as text. */
type RunTimes = "created_at" | "started_at" | "finished_at";
/** The `runs` table: the columns `runRow` writes (`ord`, PostgreSQL's insertion counter, is not read). */
export type RunsTable = Omit<ReturnType<typeof runRow>, RunTimes> & { created_at: number | string; started_at: number | string | null; finished_at: number | string | null };
export type RunRow = Omit<RunsTable, "workflow">;

/** Every column of `runs`, named once: by `runRow`, in its order (the SQLite flush's insert names them so too). */
export const RUNS_COLUMNS = Object.keys(runRow({ id: "", workflowId: "", workflowRevision: 0, status: "queued", inputs: {}, outputs: {}, createdAt: 0 }, undefined, String)) as Array<keyof RunsTable>;
/** A run's columns but the workflow it ran; a summary's, but its inputs and outputs too. */
const RUN_COLUMNS = RUNS_COLUMNS.filter((column): column is keyof RunRow => column !== "workflow");
const SUMMARY_COLUMNS = RUN_COLUMNS.filter((column): column is Exclude<keyof RunRow, "inputs" | "outputs"> => column !== "inputs" && column !== "outputs");

/** A run's summary from a row whose inputs and outputs were left unread. */
function decodeRunSummary(row: Omit<RunRow, "inputs" | "outputs">): RunSummary {
  const { inputs: _inputs, outputs: _outputs, ...summary } = decodeRun({ ...row, inputs: "{}", outputs: "{}" });
  if (summary.error && summary.error.message.length > SUMMARY_ERROR_CHARS) {
    summary.error = { ...summary.error, message: `${summary.error.message.slice(0, SUMMARY_ERROR_CHARS)}… (cut; GET /api/runs/${summary.id} has it whole)` };
  }
  return summary;
}

const StoredFork = z.object({ forkOf: z.object({ runId: z.string(), nodeId: z.string() }), changes: ForkChangesSchema });

function decodeRun(row: RunRow): RunRecord {
  const fork = StoredFork.optional().parse(optionalJson(row.fork));
  return {
    id: row.id,
    workflowId: row.workflow_id,
    workflowRevision: row.workflow_revision,
    status: RunStatusSchema.parse(row.status),
    inputs: JSON.parse(row.inputs) as Record<string, unknown>,
    outputs: JSON.parse(row.outputs) as Record<string, unknown>,
    createdAt: num(row.created_at),
    ...present({
      error: optionalJson(row.error) as NodeError | undefined,
      rerunFrom: row.rerun_from,
      sourceRunId: row.source_run_id,
      createdBy: row.created_by,
      forkOf: fork?.forkOf,
      forkChanges: fork?.changes,
      trigger: RunTriggerSchema.optional().parse(optionalJson(row.triggered_by)),
      startedAt: optionalNum(row.started_at),
      finishedAt: optionalNum(row.finished_at),
      durationMs: row.duration_ms,
      workflowVersion: optionalNum(row.workflow_version),
    }),
  };
}

/**
 * A run's row as both writers store it (RunTable.create, and write-batch.ts's SQLite flush): runtime JSON passed
 * through `redact`; `workflow` is "null" when not kept. The columns come in one order, whatever the record holds.
 */
export function runRow(record: RunRecord, workflow: Workflow | undefined, redact: (value: unknown) => string, snapshot?: string) {
  return {
    id: record.id,
    workflow_id: record.workflowId,
    workflow_revision: record.workflowRevision,
    status: record.status,
    inputs: redact(record.inputs),
    outputs: redact(record.outputs),
    error: record.error ? redact(record.error) : null,
    rerun_from: record.rerunFrom ?? null,
    source_run_id: record.sourceRunId ?? null,
    created_by: record.createdBy ?? null,
    /** `{ forkOf, changes }` for a fork (runs-001). */
    fork: record.forkOf ? redact({ forkOf: record.forkOf, changes: record.forkChanges ?? {} }) : null,
    /** RunRecord.trigger (runs-002). */
    triggered_by: record.trigger ? JSON.stringify(record.trigger) : null,
    created_at: record.createdAt,
    started_at: record.startedAt ?? null,
    finished_at: record.finishedAt ?? null,
    duration_ms: record.durationMs ?? null,
    workflow: snapshot ?? (workflow === undefined ? "null" : JSON.stringify(workflow)),
    workflow_version: record.workflowVersion ?? null,
  };
}

/**
 * Runs, on both engines, read back whole (the journal stores their large values once, `payload-refs.ts`). Lists are
 * newest first; runs created in the same millisecond keep their insertion order (SQLite's rowid, PostgreSQL's `ord`).
 */
export class RunTable extends Table<{ runs: RunsTable }> {
  /** Bases this process stored outside any transaction: not written again. */
  private readonly storedBases = new LRUCache<string, true>({ max: STORED_BASES });
  /** The payloads table, for the bases pinned snapshots name and the references in an agent's run's snapshot. */
  private readonly payloads = new PayloadStore(this.engine);
  private readonly inserts = new RunInsertBatch<RunsTable>(async (rows) => void (await this.insertRows("runs", rows)));

  /**
   * Stores a new run with a snapshot of the workflow it runs (`undefined`: generated on the fly, not kept); with `pinned`
   * (a trigger's run) the snapshot names the base, stored once (`run-workflow-base.ts`) before the row that names it.
   */
  async create(record: RunRecord, workflow: Workflow | undefined, pinned?: PinnedRun): Promise<void> {
    const snapshot = pinned === undefined ? undefined : pinnedSnapshot(pinned);
    if (snapshot !== undefined) await this.storeBase(snapshot.base);
    const row = runRow(record, workflow, (value) => this.redact(value), snapshot?.column);
    // A commit per run was PostgreSQL's cost per webhook request; inside a caller's transaction the row is its own.
    if (this.engine.sql.engine === "postgres" && !this.engine.inTransaction()) return this.inserts.add(row);
    await this.insertRows("runs", [row]);
  }

  /** A pinned snapshot's base, unless this process stored it outside any transaction (so it was never rolled back). */
  private async storeBase(base: PayloadBlob): Promise<void> {
    if (this.storedBases.has(base.id)) return;
    await this.payloads.write([base]);
    if (this.engine.inTransaction()) return;
    this.storedBases.set(base.id, true);
  }

  async get(id: string): Promise<RunRecord | undefined> {
    const [row] = await this.hot.rows("get", (slot) => this.db.selectFrom("runs").select(RUN_COLUMNS).where("id", "=", slot(0)), [id]);
    return row && hydratePayloads(decodeRun(row), this.payloads.load);
  }

  /** The workflow exactly as this run ran it; undefined when it was not kept. */
  async getWorkflow(id: string): Promise<Workflow | undefined> {
    const [row] = await this.hot.rows("workflow", (slot) => this.db.selectFrom("runs").select("workflow").where("id", "=", slot(0)), [id]);
    return this.workflowOf(row?.workflow ?? "null");
  }

  /**
   * These runs (those stored) with their workflows, in one query: a queue batch's runs as it begins, rather than two
   * reads per run. Runs sharing a snapshot text share one workflow object.
   */
  async getWithWorkflows(ids: readonly string[]): Promise<Map<string, RunWithWorkflow>> {
    const rows = await rowsByIds(ids, (chunk) => this.db.selectFrom("runs").select(RUNS_COLUMNS).where("id", "in", chunk).execute());
    const records = await hydratePayloads(rows.map(decodeRun), this.payloads.load);
    const workflows = new Map<string, Promise<Workflow | undefined>>();
    const found = new Map<string, RunWithWorkflow>();
    for (const [i, record] of records.entries()) {
      const text = rows[i].workflow;
      let workflow = workflows.get(text);
      if (workflow === undefined) workflows.set(text, (workflow = this.workflowOf(text)));
      found.set(record.id, { record, workflow: await workflow });
    }
    return found;
  }

  /** A stored snapshot read back: a pinned run's names its base; an agent's run's may reference large values. */
  private async workflowOf(text: string): Promise<Workflow | undefined> {
    if (isPinnedSnapshot(text)) return readPinnedSnapshot(text, this.payloads.load);
    // An agent's run's snapshot may hold references to large values (`payload-refs.ts`).
    if (!text.includes(PAYLOAD_REF_KEY)) return parseRunWorkflow(text);
    return WorkflowSchema.parse(await hydratePayloads(JSON.parse(text) as unknown, this.payloads.load));
  }

  private get insertionOrder() {
    return this.engine.sql.engine === "sqlite" ? sql`rowid` : sql`ord`;
  }

  /** Newest first; summaries only (the inputs and outputs columns are not read). */
  async list(query: RunListQuery): Promise<RunSummary[]> {
    const rows = await this.db
      .selectFrom("runs")
      .select(SUMMARY_COLUMNS)
      .where((eb) => eb.and(present({ workflow_id: query.workflowId, status: query.status })))
      .$if(query.before !== undefined, (q) => q.where("created_at", "<", query.before ?? 0))
      .orderBy("created_at", "desc")
      .orderBy(sql`${this.insertionOrder} desc`)
      .limit(query.limit)
      .execute();
    return hydratePayloads(rows.map(decodeRunSummary), this.payloads.load);
  }

  /** Values left out keep what is stored. */
  async update(update: RunUpdate): Promise<void> {
    const { startedAt, finishedAt, durationMs, outputs, error } = update;
    const set = {
      status: update.status,
      ...present({ started_at: startedAt, finished_at: finishedAt, duration_ms: durationMs, outputs: outputs && this.redact(outputs), error: error && this.redact(error) }),
    };
    const columns = Object.keys(set);
    // One statement per set of columns, built once (a run writer's flush on PostgreSQL compiled one per run it ended).
    await this.hot.run(`update:${columns.join(",")}`, (slot) => this.db.updateTable("runs").set(slotsOf(slot, set)).where("id", "=", slot(columns.length)), [...Object.values(set), update.id]);
  }

  /** A `waiting` run made `queued` to be resumed: true for the one caller that did (two processes may try at once). */
  async takeWaiting(id: string): Promise<boolean> {
    const result = await this.db.updateTable("runs").set({ status: "queued" }).where("id", "=", id).where("status", "=", "waiting").executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Runs a previous process left queued or running. */
  async listUnfinished(): Promise<RunRecord[]> {
    const rows = await this.db.selectFrom("runs").select(RUN_COLUMNS).where("status", "in", ["queued", "running"]).orderBy("created_at").orderBy(this.insertionOrder).execute();
    return hydratePayloads(rows.map(decodeRun), this.payloads.load);
  }

  /** Those of these runs that have ended (any order): one query for many, for who follows many runs' ends (an eval run). */
  async listEnded(ids: readonly string[]): Promise<RunRecord[]> {
    const rows = await rowsByIds(ids, (chunk) => this.db.selectFrom("runs").select(RUN_COLUMNS).where("id", "in", chunk).where("status", "in", ENDED_STATUSES).execute());
    return hydratePayloads(rows.map(decodeRun), this.payloads.load);
  }
}

/** Base ids remembered as stored; past this many the least recently stored are forgotten (a base written again is ignored). */
const STORED_BASES = 1024;
