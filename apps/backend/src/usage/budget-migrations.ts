import type { Migration } from "../storage/migrations.ts";
import { ddl } from "../storage/ddl.ts";

/**
 * The budgets: one row per target and id (`owner`/`run`, `user`/<user id>, `workflow`/<id>, …), at most `tokens`
 * tokens and/or `cost_usd` dollars (NULL: no limit of that kind). Read before every LLM call (budget-guard.ts).
 */
export const BUDGET_MIGRATIONS: readonly Migration[] = [
  {
    id: "budgets-001 token and cost budgets",
    async up(db, engine) {
      const { int64, real, withoutRowid, run } = ddl(db, engine);
      await run(`CREATE TABLE budgets (target text NOT NULL, id text NOT NULL, tokens ${int64}, cost_usd ${real}, updated_at ${int64} NOT NULL, PRIMARY KEY (target, id))${withoutRowid}`);
    },
  },
];
