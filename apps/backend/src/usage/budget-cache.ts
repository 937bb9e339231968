import type { Budget, BudgetLimit, BudgetTarget } from "@weft/types";
import type { BudgetRepository } from "./budget-repository.ts";
import { ReadCache } from "../read-cache.ts";

/** Budgets remembered at most (present or known absent): past it the memory starts over. */
const MAX_KNOWN = 10_000;

/** What the budgets' routes and the guard use of the stored budgets. */
export type Budgets = Pick<BudgetCache, "list" | "getMany" | "set" | "remove">;

/**
 * The stored budgets, with what the guard reads before every LLM call remembered until a save (`../read-cache.ts`), so a
 * call reads none. Every save in this process forgets what is remembered; one in another process (the queue mode's API,
 * for a worker) does so through `forget`, on its announcement (`../queue/settings-signal.ts`), so the next call reads
 * the new limits.
 */
export class BudgetCache {
  /** By `target/id`. */
  private readonly reads = new ReadCache<string, BudgetLimit>(MAX_KNOWN);

  constructor(private readonly repo: BudgetRepository) {}

  list(): Promise<Budget[]> {
    return this.repo.list();
  }

  /** The budgets of these targets (absent ones are left out of the map), keyed `target/id`; only those not remembered are read. */
  getMany(keys: ReadonlyArray<{ target: BudgetTarget; id: string }>): Promise<Map<string, BudgetLimit>> {
    const name = (key: { target: BudgetTarget; id: string }) => `${key.target}/${key.id}`;
    return this.reads.getMany(keys.map(name), (missing) => this.repo.getMany(keys.filter((key) => missing.includes(name(key)))));
  }

  async set(target: BudgetTarget, id: string, limit: BudgetLimit): Promise<void> {
    await this.repo.set(target, id, limit);
    await this.reads.saved();
  }

  /** True when there was one to remove. */
  async remove(target: BudgetTarget, id: string): Promise<boolean> {
    const removed = await this.repo.remove(target, id);
    if (removed) await this.reads.saved();
    return removed;
  }

  /** Calls `listener` after each save in this process (not after a `forget`); the save answers once it is done. */
  onSaved(listener: () => Promise<void>): void {
    this.reads.onSaved(listener);
  }

  /** Budgets were saved elsewhere: the next calls read them again. */
  forget(): void {
    this.reads.forget();
  }
}
