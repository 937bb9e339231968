/**
 * Stored values read before every LLM call (its profile, its budgets), remembered until a save: they change when
 * someone saves one, not per call, so an eval run's thousand cases read them once. A save in this process calls
 * `saved` (which forgets, then tells the listeners — e.g. the queue mode's announcement to other processes); a save
 * announced by another process calls `forget`. Past `max` keys the memory starts over.
 */
export class ReadCache<K, V> {
  /** By key: the value, or undefined when none is stored (known absent). */
  private readonly known = new Map<K, V | undefined>();
  /** Counts `forget`s: a read begun before one may hold an old value and is not remembered. */
  private generation = 0;
  private readonly savedListeners: Array<() => Promise<void>> = [];

  constructor(private readonly max: number) {}

  /** The stored values of `keys` (absent ones left out); `read` is asked for those not remembered, and answers those it found. */
  async getMany(keys: readonly K[], read: (missing: K[]) => Promise<ReadonlyMap<K, V>>): Promise<Map<K, V>> {
    const found = new Map<K, V>();
    const missing: K[] = [];
    for (const key of keys) {
      const value = this.known.get(key);
      if (value !== undefined) found.set(key, value);
      else if (!this.known.has(key)) missing.push(key);
    }
    if (missing.length === 0) return found;
    const generation = this.generation;
    const stored = await read(missing);
    const remember = generation === this.generation;
    if (remember && this.known.size + missing.length > this.max) this.known.clear();
    for (const key of missing) {
      const value = stored.get(key);
      if (value !== undefined) found.set(key, value);
      if (remember) this.known.set(key, value);
    }
    return found;
  }

  /** The stored value of `key`, read by `read` unless remembered. */
  async get(key: K, read: () => Promise<V | undefined>): Promise<V | undefined> {
    const found = await this.getMany([key], async () => {
      const value = await read();
      return new Map(value === undefined ? [] : [[key, value]]);
    });
    return found.get(key);
  }

  /** Calls `listener` after each `saved` (not after a `forget`). */
  onSaved(listener: () => Promise<void>): void {
    this.savedListeners.push(listener);
  }

  /** Values were saved elsewhere: the next reads read them again. */
  forget(): void {
    this.generation++;
    this.known.clear();
  }

  /** A save in this process: forgets, then waits for the listeners. */
  async saved(): Promise<void> {
    this.forget();
    await Promise.all(this.savedListeners.map((listener) => listener()));
  }
}
