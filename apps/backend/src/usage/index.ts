import type { Logger } from "@weft/types";
import type { RunRepository } from "../events/run-repository.ts";
import type { StorageEngine } from "../storage/storage.ts";
import { budgetApi } from "./budget-api.ts";
import { BudgetGuard } from "./budget-guard.ts";
import { BudgetRepository } from "./budget-repository.ts";
import { BudgetCache } from "./budget-cache.ts";
import { usageApi } from "./usage-api.ts";
import { UsageRecorder } from "./usage-recorder.ts";
import { UsageRepository } from "./usage-repository.ts";
import { RunFactsLookup } from "./run-facts.ts";

export { USAGE_MIGRATIONS } from "./usage-migrations.ts";
export { USAGE_ROUTES } from "./usage-api.ts";
export { BUDGET_MIGRATIONS } from "./budget-migrations.ts";
export { BUDGET_ROUTES } from "./budget-api.ts";
export { UsageRepository } from "./usage-repository.ts";
export { UsageRecorder } from "./usage-recorder.ts";
export type { UsageRecord, UsageRow, UsageQuery, UsageGroup } from "./usage-schemas.ts";

/**
 * The usage domain on the storage: the repository, the recorder the LLM service reports to, the budget guard it asks
 * before each call, `GET /api/usage` and the budgets' routes.
 */
export function createUsage(deps: { engine: StorageEngine; runs: Pick<RunRepository, "get">; log: Logger }) {
  const repository = new UsageRepository(deps.engine);
  const runs = new RunFactsLookup(deps.runs);
  const recorder = new UsageRecorder(repository, runs, deps.log);
  const budgets = new BudgetCache(new BudgetRepository(deps.engine));
  const guard = new BudgetGuard(budgets, repository, runs);
  return { repository, recorder, guard, budgets, runFacts: runs, api: usageApi(repository).use(budgetApi(budgets)) };
}
