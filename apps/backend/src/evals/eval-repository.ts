import { EvalRunSchema, EvalSuiteSchema, EvalTargetSchema, type EvalRun, type EvalSuite } from "@weft/types";
import type { TableEngine } from "../storage/table.ts";
import { SuiteTable } from "./suite-table.ts";

/** Eval suites (eval_suites, by target kind and id) and eval runs, on both engines. */
export class EvalRepository extends SuiteTable<EvalSuite, EvalRun> {
  constructor(engine: TableEngine) {
    super(engine, {
      suites: "eval_suites",
      runs: "eval_runs",
      cases: EvalSuiteSchema.shape.cases,
      run: EvalRunSchema,
      targetOf: (row) => ({ target: EvalTargetSchema.parse({ kind: row.target_kind, id: row.target_id }) }),
      targetColumns: (suite) => ({ target_kind: suite.target.kind, target_id: suite.target.id }),
    });
  }

  listSuites(target?: { kind: string; id: string }): Promise<EvalSuite[]> {
    return this.listWhere(target ? { target_kind: target.kind, target_id: target.id } : {});
  }
}
