import { z } from "zod";
import { BudgetLimitSchema, BudgetSchema, type BudgetLimit, type BudgetTarget } from "@weft/types";
import { ApiClient } from "../../shared/api/client.ts";

const BudgetsSchema = z.object({ budgets: z.array(BudgetSchema) });

/** `GET /api/budgets`, `PUT` / `DELETE /api/budgets/:target/:id` (docs/api.md "Budgets"). */
export class BudgetsApi extends ApiClient {
  list() {
    return this.request("GET", "/api/budgets", BudgetsSchema);
  }
  set(target: BudgetTarget, id: string, limit: BudgetLimit) {
    return this.request("PUT", `/api/budgets/${target}/${encodeURIComponent(id)}`, BudgetSchema, BudgetLimitSchema.parse(limit));
  }
  remove(target: BudgetTarget, id: string) {
    return this.request("DELETE", `/api/budgets/${target}/${encodeURIComponent(id)}`, z.unknown());
  }
}

export const budgetsApi = new BudgetsApi();
