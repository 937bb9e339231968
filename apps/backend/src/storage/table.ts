import { CamelCasePlugin, type Insertable, type Kysely } from "kysely";
import { createQueryDb } from "./query-db.ts";
import { powerOfTwoChunks, PreparedQueries, slotsOf, type SlotOf } from "./prepared-query.ts";
import type { StorageEngine } from "./storage.ts";

/** What a table needs of the engine at the least (the scene and Builder stores are given only this). */
export type TableEngine = Pick<StorageEngine, "sql" | "redactor" | "transaction">;

/** Values per multi-row insert (1,024 events or observations, 128 runs): far below either engine's limit of parameters. */
const MAX_VALUES = 4096;

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

  /** Inserts `rows` (see `upsertRows`). */
  protected insertRows<T extends keyof DB & string>(table: T, rows: ReadonlyArray<Insertable<DB[T]>>): Promise<number> {
    return this.upsertRows(table, [], rows);
  }

  /**
   * Inserts `rows` (the same columns in the same order in each; each key at most once); where a row with the same `key`
   * is stored, sets its other columns to the new row's, but those in `keep` (e.g. `created_at`), or with keep "all"
   * leaves it as it is (with no `key`, keep "all" leaves out a row any unique constraint refuses). Statements are built once per shape and power-of-two chunk size (`powerOfTwoChunks`, at most
   * MAX_VALUES values each: a run writer's flush on PostgreSQL compiled its inserts every time); several are
   * `atomically` one write, all stored or none. Answers how many rows it inserted or changed (0 for those left as they are).
   */
  protected async upsertRows<T extends keyof DB & string>(
    table: T,
    key: ReadonlyArray<keyof DB[T] & string>,
    rows: ReadonlyArray<Insertable<DB[T]>>,
    keep: ReadonlyArray<keyof DB[T] & string> | "all" = [],
  ): Promise<number> {
    if (rows.length === 0) return 0;
    const columns = Object.keys(rows[0]);
    // Kysely cannot type a table and columns its caller chooses; the signature above checks them.
    const db = this.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    // Built once per shape: the statement is prepared by it.
    const insert = (chunk: Array<Record<string, unknown>>) => {
      const query = db.insertInto(table as string).values(chunk);
      if (key.length === 0) return keep === "all" ? query.onConflict((oc) => oc.doNothing()) : query;
      const left = new Set<string>(keep === "all" ? columns : [...key, ...keep]);
      const changed = columns.filter((column) => !left.has(column));
      return query.onConflict((oc) =>
        changed.length === 0 ? oc.columns(key).doNothing() : oc.columns(key).doUpdateSet((eb) => Object.fromEntries(changed.map((column) => [column, eb.ref(`excluded.${column}`)]))),
      );
    };
    const shape = `${table} (${columns.join()}) on ${key.join()} keep ${keep === "all" ? "all" : keep.join()}`;
    const chunks = [...powerOfTwoChunks(rows as Array<Record<string, unknown>>, Math.floor(MAX_VALUES / columns.length))];
    const all = async () => {
      let written = 0;
      for (const chunk of chunks) {
        const slots = (slot: SlotOf) => chunk.map((row, n) => slotsOf((i) => slot(n * columns.length + i), row));
        written += await this.hot.run(`${shape}:${chunk.length}`, (slot) => insert(slots(slot)), chunk.flatMap(Object.values));
      }
      return written;
    };
    return chunks.length > 1 ? atomically(this.engine, all) : all();
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
