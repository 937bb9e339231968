import {
  DefaultQueryExecutor,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type ConnectionProvider,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
} from "kysely";
import { preparedStatement } from "./statement-cache.ts";
import type { SqlHandle } from "./sql-handle.ts";

/**
 * A Kysely instance that runs every query on the storage's own connection: on SQLite through
 * `handle.gate` (so it waits for another caller's transaction, or joins the caller's own), on
 * PostgreSQL on `handle.current()` (the open `Storage.transaction` of this async context, else the
 * pool). Kysely is the query and schema builder only: transactions stay `Storage.transaction`.
 * Cheap to create: each repository holds its own, typed with its own tables.
 *
 * The executor hands every query straight to the connection: Kysely's default one acquires and releases
 * it through its runtime driver around each query, some ten awaits for a connection that is always the same
 * (`executeQuery` of a compiled point read on SQLite, medians of 3 alternated runs: 4.3 → 3.0 µs). Nor does
 * a query take that driver's SQLite mutex: SqliteGate orders the queries, and one waiting in the gate for
 * another caller's transaction must not hold up that transaction's own queries.
 */
export function createQueryDb<DB>(handle: SqlHandle): Kysely<DB> {
  const connection = handleConnection(handle);
  const dialect = weftDialect(handle, connection);
  const provider: ConnectionProvider = { provideConnection: (consume) => consume(connection) };
  const executor = new DefaultQueryExecutor(dialect.createQueryCompiler(), dialect.createAdapter(), provider, []);
  return new Kysely<DB>({ config: { dialect }, dialect, driver: dialect.createDriver(), executor });
}

/** Kysely's own transactions would bypass SqliteGate and the PostgreSQL async context. */
export class KyselyTransactionUnsupportedError extends Error {
  readonly code = "KYSELY_TRANSACTION_UNSUPPORTED";
  constructor() {
    super("Kysely's db.transaction() is not used in Weft: wrap the queries in Storage.transaction(async () => …) instead, and they join it.");
  }
}

function weftDialect(handle: SqlHandle, connection: DatabaseConnection): Dialect {
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: refuse,
    commitTransaction: refuse,
    rollbackTransaction: refuse,
    releaseConnection: async () => {},
    // The connection belongs to the storage, which closes it.
    destroy: async () => {},
  };
  const sqlite = handle.engine === "sqlite";
  return {
    createAdapter: () => (sqlite ? new SqliteAdapter() : new PostgresAdapter()),
    createDriver: () => driver,
    createQueryCompiler: () => (sqlite ? new SqliteQueryCompiler() : new PostgresQueryCompiler()),
    createIntrospector: (db) => (sqlite ? new SqliteIntrospector(db) : new PostgresIntrospector(db)),
  };
}

function refuse(): Promise<never> {
  return Promise.reject(new KyselyTransactionUnsupportedError());
}

type SqliteParam = string | number | bigint | boolean | null | Uint8Array;

/**
 * Runs one compiled statement on the storage's connection: on SQLite through the gate, on PostgreSQL on
 * `current()`. Kysely's driver (below) and `PreparedQueries` both run their statements here.
 */
export function executeOn<R>(handle: SqlHandle, sql: string, parameters: readonly unknown[]): Promise<QueryResult<R>> {
  switch (handle.engine) {
    case "sqlite":
      return handle.gate((): QueryResult<R> => {
        const { statement, returnsRows } = preparedStatement(handle.db, sql);
        const params = parameters as SqliteParam[];
        if (returnsRows) return { rows: statement.all(...params) as R[] };
        // No insertId: Weft's tables have no generated keys it reads back.
        return { rows: [], numAffectedRows: BigInt(statement.run(...params).changes) };
      });
    case "postgres":
      return (async () => {
        const result = (await handle.current().unsafe(sql, parameters as unknown[])) as R[] & { count?: number | null };
        return { rows: Array.from(result), numAffectedRows: result.count == null ? undefined : BigInt(result.count) };
      })();
  }
}

function handleConnection(handle: SqlHandle): DatabaseConnection {
  return {
    streamQuery: (): AsyncIterableIterator<never> => {
      throw new Error("Streaming queries are not used in Weft: select a page at a time.");
    },
    executeQuery: <R>(query: CompiledQuery) => executeOn<R>(handle, query.sql, query.parameters),
  };
}
