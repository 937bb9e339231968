import type { Compilable } from "kysely";
import { executeOn } from "./query-db.ts";
import type { SqlHandle } from "./sql-handle.ts";

/** Where a value goes in a prepared query (see `PreparedQueries`). */
class Slot {
  constructor(readonly index: number) {}
}

/** A placeholder for the `index`th value: typed as any value, so it fits every column. */
export type SlotOf = (index: number) => never;

/**
 * `rows` cut into chunks whose sizes are powers of two, largest first, at most `max` rows each: a multi-row
 * statement is then built in at most log2(max) + 1 shapes, not one per row count (each shape costs a build,
 * ~300 µs for 50 rows; `bench:journal`'s first stage built dozens).
 */
export function* powerOfTwoChunks<T>(rows: readonly T[], max: number): Generator<T[]> {
  for (let i = 0; i < rows.length;) {
    let size = 1;
    while (size * 2 <= Math.min(max, rows.length - i)) size *= 2;
    yield rows.slice(i, i + size);
    i += size;
  }
}

/** `row` with each value replaced by its slot, in key order: insert it with `Object.values(row)` as the values. */
export function slotsOf<T extends object>(slot: SlotOf, row: T): T {
  return Object.fromEntries(Object.keys(row).map((key, index) => [key, slot(index)])) as T;
}

/**
 * Queries of a hot path built with Kysely once per shape, then run with new values straight on the
 * storage's connection, as query-db.ts's driver runs them. Kysely builds and compiles a query in
 * ~20–40 µs (~300 µs for a 50-row insert), and its executor adds a few promise hops per query: a scene's
 * commit of five such queries took twice the CPU of the prepared statements before (`bench/scene-state.bench.ts`).
 * `build` gets `slot(i)` for the `i`th value; any other value in it stays constant. The text is the
 * builder's, right for each engine; query-db.ts keeps the prepared statement by its text.
 */
export class PreparedQueries {
  private readonly compiled = new Map<string, { sql: string; params: readonly unknown[] }>();

  constructor(private readonly handle: SqlHandle) {}

  /** The rows changed by the statement of shape `key`. */
  async run(key: string, build: (slot: SlotOf) => Compilable, values: readonly unknown[]): Promise<number> {
    return Number((await this.execute(key, build, values)).numAffectedRows ?? 0n);
  }

  /** The rows the query of shape `key` answers, typed by the builder. */
  async rows<R>(key: string, build: (slot: SlotOf) => Compilable<R>, values: readonly unknown[]): Promise<R[]> {
    return (await this.execute<R>(key, build, values)).rows;
  }

  private execute<R>(key: string, build: (slot: SlotOf) => Compilable, values: readonly unknown[]) {
    let query = this.compiled.get(key);
    if (!query) {
      const { sql, parameters } = build((index) => new Slot(index) as never).compile();
      query = { sql, params: parameters };
      this.compiled.set(key, query);
    }
    return executeOn<R>(
      this.handle,
      query.sql,
      query.params.map((p) => (p instanceof Slot ? values[p.index] : p)),
    );
  }
}
