import type { Compilable } from "kysely";
import type { SqlHandle } from "./sql-handle.ts";

/** Where a value goes in a prepared query (see `PreparedQueries`). */
class Slot {
  constructor(readonly index: number) {}
}

/** A placeholder for the `index`th value: typed as any value, so it fits every column. */
export type SlotOf = (index: number) => never;

type SqliteParam = string | number | bigint | boolean | null | Uint8Array;

/**
 * Queries of a hot path built with Kysely once per shape, then run with new values straight on the
 * storage's connection, as query-db.ts's driver runs them. Kysely builds and compiles a query in
 * ~20–40 µs (~300 µs for a 50-row insert), and its executor adds a few promise hops per query: a scene's
 * commit of five such queries took twice the CPU of the prepared statements before (`bench/scene-state.bench.ts`).
 * `build` gets `slot(i)` for the `i`th value; any other value in it stays constant. The text is the
 * builder's, right for each engine; bun:sqlite caches the prepared statement by its text. Answers the
 * rows changed (statements without rows).
 */
export class PreparedQueries {
  private readonly compiled = new Map<string, { sql: string; params: readonly unknown[] }>();

  constructor(private readonly handle: SqlHandle) {}

  async run(key: string, build: (slot: SlotOf) => Compilable, values: readonly unknown[]): Promise<number> {
    let query = this.compiled.get(key);
    if (!query) {
      const { sql, parameters } = build((index) => new Slot(index) as never).compile();
      query = { sql, params: parameters };
      this.compiled.set(key, query);
    }
    const { sql } = query;
    const params = query.params.map((p) => (p instanceof Slot ? values[p.index] : p));
    const handle = this.handle;
    switch (handle.engine) {
      case "sqlite":
        return await handle.gate(() => handle.db.query(sql).run(...(params as SqliteParam[])).changes);
      case "postgres":
        return ((await handle.current().unsafe(sql, params as unknown[])) as { count?: number | null }).count ?? 0;
    }
  }
}
