import type { Kysely } from "kysely";
import { createQueryDb } from "./query-db.ts";
import { PreparedQueries } from "./prepared-query.ts";
import type { StorageEngine } from "./storage.ts";

/**
 * Rows per INSERT: a statement takes at most 65,535 parameters on PostgreSQL and 32,766 on SQLite.
 * Writes of more are one transaction.
 */
export const MAX_INSERT_ROWS = 5_000;

/**
 * What a repository is built on: the engine (connection, transactions, redactor), Kysely typed with the
 * repository's own tables (`DB`), and its hot-path queries, built once per shape (`hot`, prepared-query.ts).
 */
export abstract class Table<DB> {
  protected readonly db: Kysely<DB>;
  protected readonly hot: PreparedQueries;

  constructor(protected readonly engine: StorageEngine) {
    this.db = createQueryDb<DB>(engine.sql);
    this.hot = new PreparedQueries(engine.sql);
  }

  /** Writes `rows` one statement per MAX_INSERT_ROWS (none for no rows); several statements in one transaction: all stored or none. */
  protected async inChunks<R>(rows: readonly R[], write: (chunk: R[]) => Promise<unknown>): Promise<void> {
    const all = async () => {
      for (let i = 0; i < rows.length; i += MAX_INSERT_ROWS) await write(rows.slice(i, i + MAX_INSERT_ROWS));
    };
    await (rows.length > MAX_INSERT_ROWS ? this.engine.transaction(all) : all());
  }

  /** A runtime record's JSON as stored: every known secret replaced. */
  protected redact(value: unknown): string {
    return this.engine.redactor.json(JSON.stringify(value));
  }
}
