import type { Migration } from "../storage/migrations.ts";
import { ddlStep } from "../storage/ddl.ts";

/** The runs table's steps since the baseline (its first shape is core-001's). */
export const RUN_MIGRATIONS: readonly Migration[] = [
  // `{ forkOf: { runId, nodeId }, changes }` as JSON: read with the run, never queried by.
  ddlStep("runs-001 forks of runs", () => ["ALTER TABLE runs ADD COLUMN fork text"]),
  // RunRecord.trigger as JSON (a webhook or, later, a schedule); NULL for runs started by a person or the API.
  ddlStep("runs-002 what started a run", () => ["ALTER TABLE runs ADD COLUMN triggered_by text"]),
];
