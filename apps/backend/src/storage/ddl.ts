import { sql, type ColumnType, type Kysely } from "kysely";
import type { Migration } from "./migrations.ts";
import type { SqlHandle } from "./sql-handle.ts";

/** How a table's interface types an `int64` or `time` column: PostgreSQL hands its BIGINT over as text. */
export type Int64Column = ColumnType<number | string, number, number>;

/**
 * For migrations written as DDL text both engines take: the words that differ, and `run`. Epoch-millisecond
 * times are BIGINT on PostgreSQL (SQLite's INTEGER is 64-bit), flags BOOLEAN there; JSON is TEXT on both, exactly
 * as written (JSONB would refuse a \u0000 in a run's output and reorder keys).
 */
export function ddl<DB>(db: Kysely<DB>, engine: SqlHandle["engine"]) {
  const pg = engine === "postgres";
  const int64 = pg ? "bigint" : "integer";
  return {
    pg,
    /** A 64-bit integer: SQLite's INTEGER is. */
    int64,
    time: int64,
    flag: pg ? "boolean" : "integer",
    /** A flag's false, as a DEFAULT. */
    no: pg ? "false" : "0",
    real: pg ? "double precision" : "real",
    /** An ever-growing key: an identity column on PostgreSQL, AUTOINCREMENT (never reused) on SQLite. */
    identity: pg ? "bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY" : "integer PRIMARY KEY AUTOINCREMENT",
    /** After a table of small rows with a composite key: SQLite keeps them in the key's b-tree; PostgreSQL has no such option. */
    withoutRowid: pg ? "" : " WITHOUT ROWID",
    /** Runs the statements in order, one per call (bun:sqlite runs only the first of several in one text). */
    async run(...statements: string[]): Promise<void> {
      for (const statement of statements) await sql.raw(statement).execute(db);
    },
  };
}

/** A migration step that is DDL text both engines take: `statements` names them with the words that differ, in order. */
export function ddlStep(id: string, statements: (words: ReturnType<typeof ddl>) => string[]): Migration {
  return {
    id,
    async up(db, engine) {
      const words = ddl(db, engine);
      await words.run(...statements(words));
    },
  };
}
