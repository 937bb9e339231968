import { EvalRunSchema, EvalSuiteSchema, EvalTargetSchema, type EvalRun, type EvalSuite } from "@weft/types";
import type { Selectable } from "kysely";
import type { Int64Column } from "../storage/ddl.ts";
import { num } from "../storage/row-values.ts";
import { Table, type TableEngine } from "../storage/table.ts";

interface EvalTables {
  eval_suites: {
    id: string;
    target_kind: string;
    target_id: string;
    name: string;
    cases_json: string;
    created_by: string | null;
    created_at: Int64Column;
    updated_at: Int64Column;
  };
  eval_runs: { id: string; suite_id: string; status: string; run_json: string; created_at: Int64Column };
}

const StoredCases = EvalSuiteSchema.shape.cases;

function suiteOf(row: Selectable<EvalTables["eval_suites"]>): EvalSuite {
  return {
    id: row.id,
    name: row.name,
    target: EvalTargetSchema.parse({ kind: row.target_kind, id: row.target_id }),
    cases: StoredCases.parse(JSON.parse(row.cases_json)),
    ...(row.created_by !== null ? { createdBy: row.created_by } : {}),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

/** Eval suites and eval runs, on both engines. */
export class EvalRepository extends Table<EvalTables, TableEngine> {
  async listSuites(target?: { kind: string; id: string }): Promise<EvalSuite[]> {
    let q = this.db.selectFrom("eval_suites").selectAll();
    if (target) q = q.where("target_kind", "=", target.kind).where("target_id", "=", target.id);
    const rows = await q.orderBy("created_at").orderBy("id").execute();
    return rows.map(suiteOf);
  }

  async getSuite(id: string): Promise<EvalSuite | undefined> {
    const row = await this.db.selectFrom("eval_suites").selectAll().where("id", "=", id).executeTakeFirst();
    return row ? suiteOf(row) : undefined;
  }

  /** Inserts or replaces the suite (`createdBy` and `createdAt` are kept from the first save). */
  async putSuite(suite: EvalSuite): Promise<void> {
    await this.upsertRows(
      "eval_suites",
      ["id"],
      [
        {
          id: suite.id,
          target_kind: suite.target.kind,
          target_id: suite.target.id,
          name: suite.name,
          cases_json: JSON.stringify(suite.cases),
          created_by: suite.createdBy ?? null,
          created_at: suite.createdAt,
          updated_at: suite.updatedAt,
        },
      ],
      ["created_by", "created_at"],
    );
  }

  /** Deletes the suite and its runs; true when there was one. */
  async deleteSuite(id: string): Promise<boolean> {
    return this.engine.transaction(async () => {
      await this.db.deleteFrom("eval_runs").where("suite_id", "=", id).execute();
      const result = await this.db.deleteFrom("eval_suites").where("id", "=", id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    });
  }

  /** Stores the run as it is now (outputs in it have every known secret replaced). */
  async putRun(run: EvalRun): Promise<void> {
    await this.upsertRows("eval_runs", ["id"], [{ id: run.id, suite_id: run.suiteId, status: run.status, run_json: this.redact(run), created_at: run.createdAt }], ["created_at"]);
  }

  async getRun(id: string): Promise<EvalRun | undefined> {
    const row = await this.db.selectFrom("eval_runs").select("run_json").where("id", "=", id).executeTakeFirst();
    return row ? EvalRunSchema.parse(JSON.parse(row.run_json)) : undefined;
  }

  /** The suite's runs, newest first. */
  async listRuns(suiteId: string, limit: number): Promise<EvalRun[]> {
    const rows = await this.db.selectFrom("eval_runs").select("run_json").where("suite_id", "=", suiteId).orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
    return rows.map((row) => EvalRunSchema.parse(JSON.parse(row.run_json)));
  }

  /** Runs left `running` by a process that stopped: marked failed at start. */
  async failUnfinished(reason: string): Promise<number> {
    const rows = await this.db.selectFrom("eval_runs").select("run_json").where("status", "=", "running").execute();
    for (const row of rows) {
      const run = EvalRunSchema.parse(JSON.parse(row.run_json));
      await this.putRun({ ...run, status: "failed", error: reason, finishedAt: Date.now() });
    }
    return rows.length;
  }
}
