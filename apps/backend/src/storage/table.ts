import { CamelCasePlugin, type Compilable, type Insertable, type Kysely } from "kysely";
import { createQueryDb } from "./query-db.ts";
import { powerOfTwoChunks, PreparedQueries, slotsOf } from "./prepared-query.ts";
import type { StorageEngine } from "./storage.ts";

/**
 * Rows per INSERT: a statement takes at most 65,535 parameters on PostgreSQL and 32,766 on SQLite.
 * Writes of more are one transaction.
 */
export const MAX_INSERT_ROWS = 5_000;

/** What a table needs of the engine at the least (the scene and Builder stores are given only this). */
export type TableEngine = Pick<StorageEngine, "sql" | "redactor" | "transaction">;

/**
 * What a repository is built on: the engine (connection, transactions, redactor), Kysely typed with the
 * repository's own tables (`DB`), and its hot-path queries, built once per shape (`hot`, prepared-query.ts).
 */
export abstract class Table<DB, E extends TableEngine = StorageEngine> {
  protected readonly db: Kysely<DB>;
  protected readonly hot: PreparedQueries;

  constructor(protected readonly engine: E) {
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

  /**
   * Inserts `rows` (one statement; each key at most once); where a row with the same `key` is stored, sets its other
   * columns to the new row's, but those in `keep` (e.g. `created_at`).
   */
  protected async upsertRows<T extends keyof DB & string>(
    table: T,
    key: ReadonlyArray<keyof DB[T] & string>,
    rows: ReadonlyArray<Insertable<DB[T]>>,
    keep: ReadonlyArray<keyof DB[T] & string> = [],
  ): Promise<void> {
    const left = new Set<string>([...key, ...keep]);
    const changed = Object.keys(rows[0] ?? {}).filter((column) => !left.has(column));
    // Kysely cannot type a table and columns its caller chooses; the signature above checks them.
    const db = this.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    await db
      .insertInto(table as string)
      .values(rows as Array<Record<string, unknown>>)
      .onConflict((oc) => oc.columns(key).doUpdateSet((eb) => Object.fromEntries(changed.map((column) => [column, eb.ref(`excluded.${column}`)]))))
      .execute();
  }

  /** `db` for rows that name their columns in camelCase (`RowOf` a record): Kysely's CamelCasePlugin maps them to snake_case. */
  protected camelCase(): Kysely<DB> {
    return this.db.withPlugin(new CamelCasePlugin());
  }

  /** A runtime record's JSON as stored: every known secret replaced. */
  protected redact(value: unknown): string {
    return this.engine.redactor.json(JSON.stringify(value));
  }
}

/** Values per multi-row insert (1,024 events or observations, 128 runs): far below either engine's limit of parameters. */
const MAX_VALUES = 4096;

/**
 * Inserts `rows` (columns to values, the same columns in the same order in each) by statements built once per chunk size
 * (`powerOfTwoChunks`): a run writer's flush on PostgreSQL compiled its inserts every time. Several statements are
 * `atomically` one write, all stored or none.
 */
export async function insertChunks<R extends object>(hot: PreparedQueries, engine: TableEngine, key: string, rows: readonly R[], insert: (chunk: R[]) => Compilable): Promise<void> {
  if (rows.length === 0) return;
  const width = Object.keys(rows[0]).length;
  const chunks = [...powerOfTwoChunks(rows, Math.floor(MAX_VALUES / width))];
  const all = async () => {
    for (const chunk of chunks) {
      const values = chunk.flatMap((row) => Object.values(row));
      await hot.run(`${key}:${chunk.length}`, (slot) => insert(chunk.map((row, n) => slotsOf((i) => slot(n * width + i), row))), values);
    }
  };
  await (chunks.length > 1 ? atomically(engine, all) : all());
}

/**
 * Runs `work`'s statements all or nothing: in a transaction of its own (a savepoint inside the caller's), but inside
 * this context's PostgreSQL transaction in that one, whose failed statement fails it whole (a savepoint cost two
 * more round trips). SQLite's open transaction may be another caller's, whose rollback would not be ours.
 */
export function atomically<T>(engine: TableEngine, work: () => Promise<T>): Promise<T> {
  const { sql } = engine;
  return sql.engine === "postgres" && sql.current() !== sql.sql ? work() : engine.transaction(work);
}

/** Ids per `IN (...)` list: well under SQLite's and PostgreSQL's bound-parameter limits. */
export const ID_LIST_CHUNK = 500;

/** The rows `query` answers for `ids`, asked ID_LIST_CHUNK ids at a time. */
export async function rowsByIds<R>(ids: readonly string[], query: (chunk: string[]) => Promise<R[]>): Promise<R[]> {
  const rows: R[] = [];
  for (let i = 0; i < ids.length; i += ID_LIST_CHUNK) rows.push(...(await query(ids.slice(i, i + ID_LIST_CHUNK))));
  return rows;
}
