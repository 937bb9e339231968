import type { Budget, BudgetLimit, BudgetTarget } from "@weft/types";
import type { Int64Column } from "../storage/ddl.ts";
import { num, optionalNum } from "../storage/row-values.ts";
import { Table, type TableEngine } from "../storage/table.ts";

interface BudgetsTable {
  target: string;
  id: string;
  tokens: Int64Column | null;
  cost_usd: number | null;
  updated_at: Int64Column;
}

function limitOf(row: { tokens: unknown; cost_usd: unknown }): BudgetLimit {
  const tokens = row.tokens === null ? undefined : num(row.tokens);
  const costUsd = optionalNum(row.cost_usd);
  return { ...(tokens !== undefined ? { tokens } : {}), ...(costUsd !== undefined && costUsd !== null ? { costUsd } : {}) };
}

/** The stored budgets, on both engines. */
export class BudgetRepository extends Table<{ budgets: BudgetsTable }, TableEngine> {
  async list(): Promise<Budget[]> {
    const rows = await this.db.selectFrom("budgets").select(["target", "id", "tokens", "cost_usd"]).orderBy("target").orderBy("id").execute();
    return rows.map((row) => ({ target: row.target as BudgetTarget, id: row.id, limit: limitOf(row) }));
  }

  /** The budgets of these targets (absent ones are left out of the map), keyed `target/id`. */
  async getMany(keys: ReadonlyArray<{ target: BudgetTarget; id: string }>): Promise<Map<string, BudgetLimit>> {
    const found = new Map<string, BudgetLimit>();
    if (keys.length === 0) return found;
    const rows = await this.db
      .selectFrom("budgets")
      .select(["target", "id", "tokens", "cost_usd"])
      .where((eb) => eb.or(keys.map((k) => eb.and([eb("target", "=", k.target), eb("id", "=", k.id)]))))
      .execute();
    for (const row of rows) found.set(`${row.target}/${row.id}`, limitOf(row));
    return found;
  }

  async set(target: BudgetTarget, id: string, limit: BudgetLimit): Promise<void> {
    await this.upsertRows("budgets", ["target", "id"], [{ target, id, tokens: limit.tokens ?? null, cost_usd: limit.costUsd ?? null, updated_at: Date.now() }]);
  }

  /** True when there was one to remove. */
  async remove(target: BudgetTarget, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom("budgets").where("target", "=", target).where("id", "=", id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
