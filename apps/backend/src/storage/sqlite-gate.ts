import type { Database } from "bun:sqlite";
import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Async transactions on SQLite's single connection. `transaction(work)` runs BEGIN IMMEDIATE,
 * awaits `work` and COMMITs (ROLLBACK when it throws). While it awaits, every other caller's storage
 * call waits in `run` (statements would otherwise join the open transaction and be lost with its
 * rollback), and transactions run one at a time; calls made inside the body (the same async context)
 * pass at once, and a nested transaction becomes a savepoint. Calls already running when a transaction
 * asks for the connection finish first (they are synchronous but for a few microtasks).
 *
 * So the body must only await storage calls: awaiting a storage call started outside it would wait
 * for the body to end, forever.
 */
/** How long a write waits for another connection's lock (database.ts sets the same busy timeout). */
const BUSY_WAIT_MS = 5000;

export class SqliteGate {
  private readonly context = new AsyncLocalStorage<number>();
  /** Set while a call let through by `run` is under way, so storage calls it makes itself pass too (they would wait for a transaction that waits for it). */
  private readonly passing = new AsyncLocalStorage<{ active: boolean }>();
  private open: number | undefined;
  private waitingTransactions = 0;
  private running = 0;
  private waiters: Array<() => void> = [];
  private nextId = 1;
  private savepoints = 0;
  private settled: (() => void) | undefined;

  constructor(private readonly db: Database) {}

  private inside(): boolean {
    return this.open !== undefined && this.context.getStore() === this.open;
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Runs `work` (synchronously when nothing is open) once no other caller's transaction is open or waiting. */
  async run<T>(work: () => T): Promise<Awaited<T>> {
    if (this.inside() || this.passing.getStore()?.active) return await work();
    while (this.open !== undefined || this.waitingTransactions > 0) await this.changed();
    this.running++;
    const pass = { active: true };
    try {
      return await this.passing.run(pass, work);
    } finally {
      pass.active = false;
      this.running--;
      if (this.running === 0) {
        this.notify();
        this.settled?.();
      }
    }
  }

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    if (this.inside()) return await this.savepoint(work);
    const id = await this.acquire();
    try {
      await this.begin();
      try {
        const result = await this.context.run(id, work);
        this.db.run("COMMIT");
        return result;
      } catch (error) {
        if (this.db.inTransaction) this.db.run("ROLLBACK");
        throw error;
      }
    } finally {
      this.release();
      this.settled?.();
    }
  }

  /**
   * BEGIN IMMEDIATE without blocking the thread: another connection of this process (a second storage
   * on the file, in tests and tools) may hold the write lock across awaits, and SQLite's busy timeout
   * would wait for it synchronously, so it could never finish. Retried between event-loop turns instead.
   */
  private async begin(): Promise<void> {
    const deadline = Date.now() + BUSY_WAIT_MS;
    this.db.run("PRAGMA busy_timeout = 0");
    try {
      for (;;) {
        try {
          this.db.run("BEGIN IMMEDIATE");
          return;
        } catch (error) {
          if (!(error instanceof Error && "code" in error && error.code === "SQLITE_BUSY") || Date.now() > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      }
    } finally {
      this.db.run(`PRAGMA busy_timeout = ${BUSY_WAIT_MS}`);
    }
  }

  /**
   * Runs `work` while every other storage call waits, as they wait for a transaction, but opens none: a WAL
   * checkpoint on another connection (`WalCheckpointer`), which can only start the WAL over when no write
   * came in meanwhile. `work` must not use this storage.
   */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  /** Hears each time a transaction or the last running call ended: the WAL checkpointer's cue. */
  onSettled(listener: () => void): void {
    this.settled = listener;
  }

  /** Waits until no transaction is open and no call runs (new calls wait meanwhile), and numbers the holder. */
  private async acquire(): Promise<number> {
    this.waitingTransactions++;
    try {
      while (this.open !== undefined || this.running > 0) await this.changed();
    } finally {
      this.waitingTransactions--;
    }
    const id = this.nextId++;
    this.open = id;
    return id;
  }

  private release(): void {
    this.open = undefined;
    this.notify();
  }

  private async savepoint<T>(work: () => Promise<T>): Promise<T> {
    const name = `weft_sp_${++this.savepoints}`;
    this.db.run(`SAVEPOINT ${name}`);
    try {
      const result = await work();
      this.db.run(`RELEASE ${name}`);
      return result;
    } catch (error) {
      this.db.run(`ROLLBACK TO ${name}`);
      this.db.run(`RELEASE ${name}`);
      throw error;
    }
  }
}
