import type { Selectable } from "kysely";
import type { z } from "zod";
import type { Int64Column } from "../storage/ddl.ts";
import { num, present } from "../storage/row-values.ts";
import { Table, type TableEngine } from "../storage/table.ts";

/** A suite's columns but what it tests (each kind of suite adds its own target columns). */
type SuiteColumns = { id: string; name: string; cases_json: string; created_by: string | null; created_at: Int64Column; updated_at: Int64Column };
/** The target columns, by name (text on both engines). */
export type TargetColumns = Record<string, string>;
export type SuiteRow = Selectable<SuiteColumns> & TargetColumns;
/**
 * Kysely cannot type tables whose names the kind chooses: rows are typed where they are read (SuiteRow; a run's row is
 * id, suite_id, status, run_json as the whole record, created_at). The tables: eval-migrations.ts, scene-suite-migrations.ts.
 */
type SuiteTables = Record<string, Record<string, unknown>>;

/** What every suite record holds, whatever it tests. */
type SuiteRecord = { id: string; name: string; cases: unknown[]; createdBy?: string; createdAt: number; updatedAt: number };

/** What every suite run record holds. */
type SuiteRunRecord = { id: string; suiteId: string; status: string; error?: string; createdAt: number; finishedAt?: number };

/** The names of a kind's two tables and what it stores in them. */
export interface SuiteKind<S extends SuiteRecord, R extends SuiteRunRecord> {
  suites: string;
  runs: string;
  cases: z.ZodType<S["cases"]>;
  run: z.ZodType<R>;
  /** The suite's target from its row's target columns, and back. */
  targetOf(row: SuiteRow): Omit<S, keyof SuiteRecord>;
  targetColumns(suite: S): TargetColumns;
}

/** Suites and their runs, on both engines: eval suites (eval-repository.ts) and scene suites (scene-suite-repository.ts). */
export class SuiteTable<S extends SuiteRecord, R extends SuiteRunRecord> extends Table<SuiteTables, TableEngine> {
  constructor(
    engine: TableEngine,
    private readonly kind: SuiteKind<S, R>,
  ) {
    super(engine);
  }

  private suiteOf(row: SuiteRow): S {
    const cases = this.kind.cases.parse(JSON.parse(row.cases_json));
    const common: SuiteRecord = { id: row.id, name: row.name, cases, ...present({ createdBy: row.created_by }), createdAt: num(row.created_at), updatedAt: num(row.updated_at) };
    return { ...common, ...this.kind.targetOf(row) } as S;
  }

  private runOf(row: Record<string, unknown>): R {
    return this.kind.run.parse(JSON.parse(String(row.run_json)));
  }

  /** Oldest first; only those whose target columns equal `target`'s. */
  protected async listWhere(target: TargetColumns): Promise<S[]> {
    let q = this.db.selectFrom(this.kind.suites).selectAll();
    for (const [column, value] of Object.entries(target)) q = q.where(column, "=", value);
    const rows = await q.orderBy("created_at").orderBy("id").execute();
    return rows.map((row) => this.suiteOf(row as SuiteRow));
  }

  async getSuite(id: string): Promise<S | undefined> {
    const row = await this.db.selectFrom(this.kind.suites).selectAll().where("id", "=", id).executeTakeFirst();
    return row ? this.suiteOf(row as SuiteRow) : undefined;
  }

  /** Inserts or replaces the suite (`createdBy` and `createdAt` are kept from the first save). */
  async putSuite(suite: S): Promise<void> {
    const common = { id: suite.id, name: suite.name, cases_json: JSON.stringify(suite.cases), created_by: suite.createdBy ?? null, created_at: suite.createdAt, updated_at: suite.updatedAt };
    const row = { ...common, ...this.kind.targetColumns(suite) };
    await this.upsertRows(this.kind.suites, ["id"], [row], ["created_by", "created_at"]);
  }

  /** Deletes the suite and its runs; true when there was one. */
  async deleteSuite(id: string): Promise<boolean> {
    return this.engine.transaction(async () => {
      await this.db.deleteFrom(this.kind.runs).where("suite_id", "=", id).execute();
      const result = await this.db.deleteFrom(this.kind.suites).where("id", "=", id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    });
  }

  /** Stores the run as it is now (values in it have every known secret replaced). */
  async putRun(run: R): Promise<void> {
    await this.upsertRows(this.kind.runs, ["id"], [{ id: run.id, suite_id: run.suiteId, status: run.status, run_json: this.redact(run), created_at: run.createdAt }], ["created_at"]);
  }

  async getRun(id: string): Promise<R | undefined> {
    const row = await this.db.selectFrom(this.kind.runs).select("run_json").where("id", "=", id).executeTakeFirst();
    return row ? this.runOf(row) : undefined;
  }

  /** The suite's runs, newest first. */
  async listRuns(suiteId: string, limit: number): Promise<R[]> {
    const rows = await this.db.selectFrom(this.kind.runs).select("run_json").where("suite_id", "=", suiteId).orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
    return rows.map((row) => this.runOf(row));
  }

  /** Runs left `running` by a process that stopped: marked failed at start. */
  async failUnfinished(reason: string): Promise<number> {
    const rows = await this.db.selectFrom(this.kind.runs).select("run_json").where("status", "=", "running").execute();
    for (const row of rows) await this.putRun({ ...this.runOf(row), status: "failed", error: reason, finishedAt: Date.now() });
    return rows.length;
  }
}
