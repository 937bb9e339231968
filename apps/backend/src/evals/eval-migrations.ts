import type { Migration } from "../storage/migrations.ts";
import { ddl } from "../storage/ddl.ts";

/**
 * Eval suites (one row each: the target it tests, its cases as JSON) and eval runs (one row each: the whole record,
 * per-case results included, as JSON; rewritten as cases finish).
 */
export const EVAL_MIGRATIONS: readonly Migration[] = [
  {
    id: "evals-001 eval suites and eval runs",
    async up(db, engine) {
      const { time, run } = ddl(db, engine);
      await run(
        `CREATE TABLE eval_suites (id text PRIMARY KEY, target_kind text NOT NULL, target_id text NOT NULL, name text NOT NULL, cases_json text NOT NULL, created_by text, created_at ${time} NOT NULL, updated_at ${time} NOT NULL)`,
        `CREATE INDEX eval_suites_target ON eval_suites (target_kind, target_id)`,
        `CREATE TABLE eval_runs (id text PRIMARY KEY, suite_id text NOT NULL, status text NOT NULL, run_json text NOT NULL, created_at ${time} NOT NULL)`,
        `CREATE INDEX eval_runs_suite ON eval_runs (suite_id, created_at)`,
      );
    },
  },
];
