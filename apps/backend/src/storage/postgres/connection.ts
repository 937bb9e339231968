import type { SQL, TransactionSQL } from "bun";
import { AsyncLocalStorage } from "node:async_hooks";
import type { PostgresHandle } from "../sql-handle.ts";

/**
 * The pool and the transaction of the current async context. `transaction(work)` opens one with
 * `sql.begin` and runs `work` with it as the context's connection, so every repository call awaited
 * inside (each asks `current()`) joins it; a nested call becomes a savepoint.
 */
export class PostgresConnection implements PostgresHandle {
  readonly engine = "postgres";
  private readonly context = new AsyncLocalStorage<TransactionSQL>();

  constructor(readonly sql: SQL) {}

  current(): SQL {
    return this.context.getStore() ?? this.sql;
  }

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    const open = this.context.getStore();
    // `begin`'s and `savepoint`'s callbacks answer `work`'s promise; the wrapper keeps T from being unwrapped as an array of promises.
    const wrapped = async (tx: TransactionSQL) => ({ value: await this.context.run(tx, work) });
    const result = open ? await open.savepoint(wrapped) : await this.sql.begin(wrapped);
    return result.value;
  }
}

/** A row's BIGINT (epoch milliseconds), which the driver hands over as text. */
export function num(value: unknown): number {
  return typeof value === "number" ? value : Number(value);
}

export function optionalNum(value: unknown): number | undefined {
  return value === null || value === undefined ? undefined : num(value);
}
