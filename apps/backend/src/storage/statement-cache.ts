import type { Database, Statement } from "bun:sqlite";

/** Statements kept prepared per connection: more than the hot queries of every repository together. */
export const STATEMENTS_KEPT = 256;

/**
 * Prepared statements by their text, so the same query compiles once. Not bun:sqlite's `db.query`
 * cache: it keeps the 20 texts prepared last, and a server runs more (migrations, every repository's
 * queries), so queries of the run path were compiled again on every call (a profile of `bench:server`'s
 * run starts: 1.3 s of 117 s in preparing statements, none before the repositories moved onto Kysely).
 * Two generations, as in LruOutputCache: at least the `STATEMENTS_KEPT` most recently used are kept,
 * and a dropped statement is finalized (statements run synchronously, so none is in use then).
 */
export class StatementCache {
  private current = new Map<string, Statement>();
  private previous = new Map<string, Statement>();

  constructor(private readonly db: Database) {}

  get(sql: string): Statement {
    let statement = this.current.get(sql);
    if (statement !== undefined) return statement;
    statement = this.previous.get(sql);
    if (statement !== undefined) this.previous.delete(sql);
    else statement = this.db.prepare(sql);
    this.current.set(sql, statement);
    if (this.current.size >= STATEMENTS_KEPT) {
      for (const dropped of this.previous.values()) dropped.finalize();
      this.previous = this.current;
      this.current = new Map();
    }
    return statement;
  }

  /** Finalizes every kept statement: SQLite closes a connection (and checkpoints, removing the WAL) only once none is left. */
  finalizeAll(): void {
    for (const statement of this.previous.values()) statement.finalize();
    for (const statement of this.current.values()) statement.finalize();
    this.previous = new Map();
    this.current = new Map();
  }
}

const statementCaches = new WeakMap<Database, StatementCache>();

/** The statement of `sql` on `db`, prepared once while it stays in use. */
export function preparedStatement(db: Database, sql: string): Statement {
  let cache = statementCaches.get(db);
  if (cache === undefined) {
    cache = new StatementCache(db);
    statementCaches.set(db, cache);
  }
  return cache.get(sql);
}

/** Finalizes the statements kept for `db`; called just before it closes. */
export function finalizeStatements(db: Database): void {
  statementCaches.get(db)?.finalizeAll();
  statementCaches.delete(db);
}
