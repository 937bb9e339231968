import type { Migration } from "../storage/migrations.ts";
import { ddl } from "../storage/ddl.ts";

/** Scene suites (one row each: the scene, its cases as JSON) and their runs (the whole record as JSON, rewritten as runs finish). */
export const SCENE_SUITE_MIGRATIONS: readonly Migration[] = [
  {
    id: "evals-002 scene suites and their runs",
    async up(db, engine) {
      const { time, run } = ddl(db, engine);
      await run(
        `CREATE TABLE scene_suites (id text PRIMARY KEY, scene_id text NOT NULL, name text NOT NULL, cases_json text NOT NULL, created_by text, created_at ${time} NOT NULL, updated_at ${time} NOT NULL)`,
        `CREATE INDEX scene_suites_scene ON scene_suites (scene_id)`,
        `CREATE TABLE scene_suite_runs (id text PRIMARY KEY, suite_id text NOT NULL, status text NOT NULL, run_json text NOT NULL, created_at ${time} NOT NULL)`,
        `CREATE INDEX scene_suite_runs_suite ON scene_suite_runs (suite_id, created_at)`,
      );
    },
  },
];
