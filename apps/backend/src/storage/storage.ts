import { SQL } from "bun";
import { messageOf, SecretRedactor } from "@weft/types";
import { join } from "node:path";
import { openDatabase } from "./database.ts";
import { runMigrations, type Migration } from "./migrations.ts";
import { SqliteGate } from "./sqlite-gate.ts";
import { WalCheckpointer } from "./wal-checkpointer.ts";
import { finalizeStatements } from "./statement-cache.ts";
import { describeDatabaseUrl, PostgresConnection, PostgresUnavailableError } from "./postgres-connection.ts";
import type { SqlHandle } from "./sql-handle.ts";

export const DATABASE_FILE = "weft.sqlite";

/**
 * The storage engine on either database: the connection, transactions and the redactor. It knows no
 * table but the migration runner's: each domain builds its repositories on it, and the composition
 * (../app-storage.ts) puts them together.
 */
export interface StorageEngine {
  /** The connection every repository runs its statements on. */
  readonly sql: SqlHandle;
  /**
   * Runs `work` in one transaction: all of it is stored, or none (it rolls back when `work` throws).
   * Every repository call awaited inside it, and every statement on `sql` (SQLite: `db`; PostgreSQL:
   * `current()`), joins it; a nested call becomes a savepoint. SQLite: BEGIN IMMEDIATE, one transaction
   * at a time, other callers' storage calls wait until it ends — so the body must only await storage
   * calls (awaiting anything that itself waits for storage outside the body never ends).
   */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /** Whether this async context is inside `transaction` (SQLite: whether one is open). */
  inTransaction(): boolean;
  /**
   * What runtime records (runs, observations, events, conversations, agent steps and sessions) pass
   * before they are written: every stored secret replaced. User documents are stored as given.
   */
  readonly redactor: SecretRedactor;
  close(): Promise<void>;
}

/** SQLite in `<dataDir>/weft.sqlite`, created if needed. */
function sqliteEngine(dataDir: string, redactor: SecretRedactor): StorageEngine {
  const file = join(dataDir, DATABASE_FILE);
  const db = openDatabase(file);
  const gate = new SqliteGate(db);
  const checkpointer = new WalCheckpointer(file);
  checkpointer.attach(db, gate);
  return {
    sql: { engine: "sqlite", db, gate: (work) => gate.run(work) },
    transaction: (work) => gate.transaction(work),
    inTransaction: () => db.inTransaction,
    redactor,
    async close() {
      await checkpointer.close();
      finalizeStatements(db);
      db.close();
    },
  };
}

/** A pool on PostgreSQL at `url`; its password joins the secrets `redactor` replaces. */
function postgresEngine(url: string, redactor: SecretRedactor, maxConnections = 10): StorageEngine {
  const password = URL.canParse(url) ? decodeURIComponent(new URL(url).password) : "";
  if (password) redactor.set("database-url", "database password", [password]);
  const pool = new SQL(url, { max: maxConnections, idleTimeout: 30, connectionTimeout: 10 });
  const connection = new PostgresConnection(pool);
  return { sql: connection, transaction: (work) => connection.transaction(work), inTransaction: () => connection.inTransaction(), redactor, close: () => pool.close({ timeout: 5 }) };
}

export interface StorageOptions {
  /** Where the SQLite file lives (and the server's other files). */
  dataDir: string;
  /** `postgres://…` (WEFT_DATABASE_URL) selects PostgreSQL; unset, SQLite in `<dataDir>/weft.sqlite`. */
  databaseUrl?: string | undefined;
  /** PostgreSQL connections in this process's pool (WEFT_DB_POOL_SIZE); default 10. Not used by SQLite. */
  poolSize?: number | undefined;
  redactor?: SecretRedactor;
  /** Every module's schema steps, core first (the composition's list, ../schema.ts): storage imports no module. */
  migrations: readonly Migration[];
}

/**
 * Opens the engine the options select, migrates it (PostgreSQL under an advisory lock, so processes starting together
 * do not race) and hands it to `compose`, which puts the repositories on it. On any failure the engine is closed;
 * PostgreSQL's is DATABASE_UNAVAILABLE naming the host, never the password (SCHEMA_TOO_NEW as it is).
 */
export async function openStorage<S>(options: StorageOptions, compose: (engine: StorageEngine) => Promise<S>): Promise<S> {
  const { databaseUrl, redactor = new SecretRedactor() } = options;
  const engine = databaseUrl ? postgresEngine(databaseUrl, redactor, options.poolSize) : sqliteEngine(options.dataDir, redactor);
  try {
    await runMigrations(engine, options.migrations);
    return await compose(engine);
  } catch (error) {
    await engine.close().catch(() => undefined);
    if (!databaseUrl || (error instanceof Error && "code" in error && error.code === "SCHEMA_TOO_NEW")) throw error;
    const detail = redactor.text(messageOf(error).replaceAll(databaseUrl, describeDatabaseUrl(databaseUrl)));
    throw new PostgresUnavailableError(`Could not open the PostgreSQL storage at ${describeDatabaseUrl(databaseUrl)}: ${detail}`);
  }
}
