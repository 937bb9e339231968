import type { SQL, TransactionSQL } from "bun";
import { AsyncLocalStorage } from "node:async_hooks";
import type { PostgresHandle } from "./sql-handle.ts";

/**
 * The pool and the transaction of the current async context. `transaction(work)` opens one with
 * `sql.begin` and runs `work` with it as the context's connection, so every repository call awaited
 * inside (each asks `current()`) joins it; a nested call becomes a savepoint.
 */
export class PostgresConnection implements PostgresHandle {
  readonly engine = "postgres";
  private readonly context = new AsyncLocalStorage<OpenTransaction>();

  constructor(readonly sql: SQL) {}

  current(): SQL {
    return this.open()?.tx ?? this.sql;
  }

  /** Whether this async context is inside an open `transaction`. */
  inTransaction(): boolean {
    return this.open() !== undefined;
  }

  /**
   * The transaction of this async context while it is open. A callback the body scheduled (a timer, a
   * flush) keeps the context after the transaction ended: it then runs on the pool.
   */
  private open(): OpenTransaction | undefined {
    const store = this.context.getStore();
    return store?.open ? store : undefined;
  }

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    const outer = this.open();
    // `begin`'s and `savepoint`'s callbacks answer `work`'s promise; the wrapper keeps T from being unwrapped as an array of promises.
    const wrapped = async (tx: TransactionSQL) => {
      const opened: OpenTransaction = { tx, open: true };
      try {
        return { value: await this.context.run(opened, work) };
      } finally {
        opened.open = false;
      }
    };
    const result = outer ? await outer.tx.savepoint(wrapped) : await this.sql.begin(wrapped);
    return result.value;
  }
}

interface OpenTransaction {
  tx: TransactionSQL;
  open: boolean;
}

/** The database could not be reached or migrated; the message names the host, never the password. */
export class PostgresUnavailableError extends Error {
  readonly code = "DATABASE_UNAVAILABLE";
}

/** The URL without its password, for messages and logs. */
export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.username ? `${parsed.username}@` : ""}${parsed.host}${parsed.pathname}`;
  } catch {
    return "(an unreadable URL)";
  }
}
