import type { Migration } from "../storage/migrations.ts";
import { ddl } from "../storage/ddl.ts";

/** What started a run (`RunRecord.trigger`, JSON): a webhook or, later, a schedule; NULL for runs started by a person or the API. */
export const RUN_TRIGGER_MIGRATIONS: readonly Migration[] = [
  {
    id: "runs-001 what started a run",
    async up(db, engine) {
      await ddl(db, engine).run("ALTER TABLE runs ADD COLUMN triggered_by text");
    },
  },
];
