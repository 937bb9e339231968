import type { Migration } from "../storage/migrations.ts";
import { ddl } from "../storage/ddl.ts";

/** The runs table's steps since the baseline (its first shape is core-001's). */
export const RUN_MIGRATIONS: readonly Migration[] = [
  {
    id: "runs-001 forks of runs",
    async up(db, engine) {
      // `{ forkOf: { runId, nodeId }, changes }` as JSON: read with the run, never queried by.
      await ddl(db, engine).run(`ALTER TABLE runs ADD COLUMN fork text`);
    },
  },
  {
    id: "runs-002 what started a run",
    async up(db, engine) {
      // RunRecord.trigger as JSON (a webhook or, later, a schedule); NULL for runs started by a person or the API.
      await ddl(db, engine).run("ALTER TABLE runs ADD COLUMN triggered_by text");
    },
  },
];
