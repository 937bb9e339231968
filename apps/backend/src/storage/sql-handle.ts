import type { Database } from "bun:sqlite";
import type { SQL } from "bun";

/**
 * The storage's connection, for modules with tables of their own (Builder, scenes, accounts,
 * credentials): they switch exhaustively on `engine` to pick their SQLite or PostgreSQL implementation,
 * and their writes join `Storage.transaction` on both engines.
 */
export type SqlHandle = SqliteHandle | PostgresHandle;

export interface SqliteHandle {
  engine: "sqlite";
  db: Database;
  /**
   * Runs `work` once no other caller's `Storage.transaction` holds the connection (at once when none
   * does, or when called inside that transaction). SQLite has one connection: a statement run while
   * another caller's transaction is open would join it, and vanish if it rolls back. Statements on
   * `db` outside `Storage.transaction` go through here.
   */
  gate<T>(work: () => T): Promise<Awaited<T>>;
}

export interface PostgresHandle {
  engine: "postgres";
  /** The pool. */
  sql: SQL;
  /** The open `Storage.transaction` of this async context, or the pool outside one: run every statement on this. */
  current(): SQL;
}

/** `Storage.transaction`: all of `work` stored or none; every storage call awaited inside joins it. */
export type Transact = <T>(work: () => Promise<T>) => Promise<T>;
