import type { Budget, BudgetLimit, BudgetTarget } from "@weft/types";
import type { BudgetRepository } from "./budget-repository.ts";

/** Budgets remembered at most (present or known absent): past it the memory starts over. */
const MAX_KNOWN = 10_000;

/** What the budgets' routes and the guard use of the stored budgets. */
export type Budgets = Pick<BudgetCache, "list" | "getMany" | "set" | "remove">;

/**
 * The stored budgets, with what the guard reads before every LLM call remembered: a budget changes when someone saves
 * one, not per call, so a call reads none (an eval run's thousand cases read them once, not a thousand times). Every
 * save in this process forgets what is remembered; one in another process (the queue mode's API, for a worker) does so
 * through `forget`, on its announcement (`../queue/settings-signal.ts`), so the next call reads the new limits.
 */
export class BudgetCache {
  /** `target/id` → its limit, or null: known to have none. */
  private readonly known = new Map<string, BudgetLimit | null>();
  /** Counts `forget`s: a read begun before one may hold an old limit and is not remembered. */
  private generation = 0;
  private readonly savedListeners: Array<() => Promise<void>> = [];

  constructor(private readonly repo: BudgetRepository) {}

  list(): Promise<Budget[]> {
    return this.repo.list();
  }

  /** The budgets of these targets (absent ones are left out of the map), keyed `target/id`; only those not remembered are read. */
  async getMany(keys: ReadonlyArray<{ target: BudgetTarget; id: string }>): Promise<Map<string, BudgetLimit>> {
    const found = new Map<string, BudgetLimit>();
    const missing: Array<{ target: BudgetTarget; id: string }> = [];
    for (const key of keys) {
      const limit = this.known.get(`${key.target}/${key.id}`);
      if (limit === undefined) missing.push(key);
      else if (limit !== null) found.set(`${key.target}/${key.id}`, limit);
    }
    if (missing.length === 0) return found;
    const generation = this.generation;
    const read = await this.repo.getMany(missing);
    const remember = generation === this.generation;
    if (remember && this.known.size + missing.length > MAX_KNOWN) this.known.clear();
    for (const key of missing) {
      const name = `${key.target}/${key.id}`;
      const limit = read.get(name);
      if (limit !== undefined) found.set(name, limit);
      if (remember) this.known.set(name, limit ?? null);
    }
    return found;
  }

  async set(target: BudgetTarget, id: string, limit: BudgetLimit): Promise<void> {
    await this.repo.set(target, id, limit);
    await this.saved();
  }

  /** True when there was one to remove. */
  async remove(target: BudgetTarget, id: string): Promise<boolean> {
    const removed = await this.repo.remove(target, id);
    if (removed) await this.saved();
    return removed;
  }

  /** Calls `listener` after each save in this process (not after a `forget`); the save answers once it is done. */
  onSaved(listener: () => Promise<void>): void {
    this.savedListeners.push(listener);
  }

  /** Budgets were saved elsewhere: the next calls read them again. */
  forget(): void {
    this.generation++;
    this.known.clear();
  }

  private async saved(): Promise<void> {
    this.forget();
    await Promise.all(this.savedListeners.map((listener) => listener()));
  }
}
