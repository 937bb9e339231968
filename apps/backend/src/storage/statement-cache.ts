import type { Database, Statement } from "bun:sqlite";

/** Statements kept prepared per connection: more than the hot queries of every repository together. */
export const STATEMENTS_KEPT = 256;

/** A kept statement, and whether it answers rows (a SELECT or a RETURNING) or only changes them. */
export interface PreparedStatement {
  statement: Statement;
  returnsRows: boolean;
}

/**
 * Prepared statements by their text, so the same query compiles once. Not bun:sqlite's `db.query`
 * cache: it keeps the 20 texts prepared last, and a server runs more (migrations, every repository's
 * queries), so queries of the run path were compiled again on every call (a profile of `bench:server`'s
 * run starts: 1.3 s of 117 s in preparing statements, none before the repositories moved onto Kysely).
 * Two generations, as in LruOutputCache: at least the `STATEMENTS_KEPT` most recently used are kept,
 * and a dropped statement is finalized (statements run synchronously, so none is in use then).
 */
export class StatementCache {
  private current = new Map<string, PreparedStatement>();
  private previous = new Map<string, PreparedStatement>();

  constructor(private readonly db: Database) {}

  get(sql: string): PreparedStatement {
    let prepared = this.current.get(sql);
    if (prepared !== undefined) return prepared;
    prepared = this.previous.get(sql);
    if (prepared !== undefined) this.previous.delete(sql);
    else {
      const statement = this.db.prepare(sql);
      // bun:sqlite's columnNames asks SQLite on every read (~1% of a hook request's CPU, read per query): read once.
      prepared = { statement, returnsRows: statement.columnNames.length > 0 };
    }
    this.current.set(sql, prepared);
    if (this.current.size >= STATEMENTS_KEPT) {
      for (const dropped of this.previous.values()) dropped.statement.finalize();
      this.previous = this.current;
      this.current = new Map();
    }
    return prepared;
  }

  /** Finalizes every kept statement: SQLite closes a connection (and checkpoints, removing the WAL) only once none is left. */
  finalizeAll(): void {
    for (const { statement } of this.previous.values()) statement.finalize();
    for (const { statement } of this.current.values()) statement.finalize();
    this.previous = new Map();
    this.current = new Map();
  }
}

const statementCaches = new WeakMap<Database, StatementCache>();

/** The statement of `sql` on `db`, prepared once while it stays in use. */
export function preparedStatement(db: Database, sql: string): PreparedStatement {
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
