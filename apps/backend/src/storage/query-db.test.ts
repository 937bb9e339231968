import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SQL } from "bun";
import { join } from "node:path";
import { sql, type Kysely } from "kysely";
import { openDatabase } from "./database.ts";
import { SqliteGate } from "./sqlite-gate.ts";
import { PostgresConnection } from "./postgres-connection.ts";
import { createQueryDb } from "./query-db.ts";
import { runMigrations, type Migration } from "./migrations.ts";
import type { SqlHandle } from "./sql-handle.ts";
import { tempDir } from "../testing/test-server.ts";
import { requireSqlite } from "../testing/storage.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";

interface NotesTable {
  id: string;
  body: string;
  size: number;
}
interface DB {
  notes: NotesTable;
}

const NOTES: Migration = {
  id: "test-001 notes",
  async up(db) {
    await db.schema
      .createTable("notes")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("body", "text", (c) => c.notNull())
      .addColumn("size", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  },
};

/** A handle and its `Storage.transaction`, as the storage builds them, on either engine. */
interface Engine {
  sql: SqlHandle;
  transaction<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

function sqliteEngine(): Engine {
  const db = openDatabase(join(tempDir(), "weft.sqlite"));
  const gate = new SqliteGate(db);
  return { sql: { engine: "sqlite", db, gate: (work) => gate.run(work) }, transaction: (work) => gate.transaction(work), close: async () => db.close() };
}

let cluster: TestPostgres;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

async function postgresEngine(): Promise<Engine> {
  const connection = new PostgresConnection(new SQL(await createTestDatabase(cluster.url), { max: 3 }));
  return { sql: connection, transaction: (work) => connection.transaction(work), close: () => connection.sql.close({ timeout: 5 }) };
}

describe.each([
  ["sqlite", async () => sqliteEngine()],
  ["postgres", postgresEngine],
] as const)("query-db on %s", (_name, open) => {
  let engine: Engine;
  let db: Kysely<DB>;
  beforeAll(async () => {
    engine = await open();
    db = createQueryDb<DB>(engine.sql);
    expect(await runMigrations(engine, [NOTES])).toEqual(["test-001 notes"]);
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
  });

  it("runs inserts, selects, updates and deletes on the storage's connection, with affected row counts", async () => {
    await db.deleteFrom("notes").execute();
    await db
      .insertInto("notes")
      .values([
        { id: "a", body: "alpha", size: 5 },
        { id: "b", body: "beta", size: 4 },
      ])
      .execute();
    const updated = await db.updateTable("notes").set({ body: "ALPHA" }).where("id", "=", "a").executeTakeFirst();
    expect(updated.numUpdatedRows).toBe(1n);
    expect(await db.selectFrom("notes").selectAll().orderBy("id").execute()).toEqual([
      { id: "a", body: "ALPHA", size: 5 },
      { id: "b", body: "beta", size: 4 },
    ]);
    const { count } = await db
      .selectFrom("notes")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .executeTakeFirstOrThrow();
    expect(Number(count)).toBe(2);
    const deleted = await db.deleteFrom("notes").where("id", "=", "b").executeTakeFirst();
    expect(deleted.numDeletedRows).toBe(1n);
    expect(await db.selectFrom("notes").select("id").execute()).toEqual([{ id: "a" }]);
  });

  it("joins Storage.transaction: queries awaited in a body that throws are rolled back with it", async () => {
    await db.deleteFrom("notes").execute();
    await engine.transaction(async () => {
      await db.insertInto("notes").values({ id: "kept", body: "k", size: 1 }).execute();
    });
    await expect(
      engine.transaction(async () => {
        await db.insertInto("notes").values({ id: "lost", body: "l", size: 1 }).execute();
        expect(await db.selectFrom("notes").select("id").orderBy("id").execute()).toEqual([{ id: "kept" }, { id: "lost" }]);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await db.selectFrom("notes").select("id").execute()).toEqual([{ id: "kept" }]);
  });

  it("refuses Kysely's own transactions with a coded error naming Storage.transaction", async () => {
    await expect(db.transaction().execute(async () => undefined)).rejects.toMatchObject({ code: "KYSELY_TRANSACTION_UNSUPPORTED", message: expect.stringContaining("Storage.transaction") });
  });

  it("migrates once, refuses a database with a step it does not know, and rolls a failing list back whole", async () => {
    expect(await runMigrations(engine, [NOTES])).toEqual([]);
    await expect(runMigrations(engine, [])).rejects.toMatchObject({ code: "SCHEMA_TOO_NEW", message: expect.stringContaining("test-001 notes") });
    const broken: Migration[] = [
      NOTES,
      { id: "test-002 more", up: (d) => d.schema.createTable("more").addColumn("id", "text").execute() },
      { id: "test-003 broken", up: (d) => sql`SELECT * FROM no_such_table`.execute(d).then(() => undefined) },
    ];
    await expect(runMigrations(engine, broken)).rejects.toThrow(/no_such_table/);
    const tables = await sql<{ n: number }>`SELECT count(*) AS n FROM schema_migrations WHERE id <> 'test-001 notes'`.execute(db);
    expect(Number(tables.rows[0].n)).toBe(0);
    await expect(db.withTables<{ more: { id: string } }>().selectFrom("more").selectAll().execute()).rejects.toThrow(/more/);
  });

  it("refuses a list that names one id twice, before applying any of it", async () => {
    const again: Migration = { id: "test-004 again", up: (d) => d.schema.createTable("again").addColumn("id", "text").execute() };
    await expect(runMigrations(engine, [NOTES, again, again])).rejects.toThrow('Migration id "test-004 again" appears twice');
    await expect(db.withTables<{ again: { id: string } }>().selectFrom("again").selectAll().execute()).rejects.toThrow(/again/);
  });
});

describe("query-db's SQLite statements", () => {
  it("prepares each query's SQL text once per connection, past bun:sqlite's 20-statement cache", async () => {
    const engine = sqliteEngine();
    const { db: connection } = requireSqlite(engine.sql, "the statement count");
    const db = createQueryDb<DB>(engine.sql);
    await runMigrations(engine, [NOTES]);
    // Each text a statement is made of, by text (db.query too: it prepares again once 20 other texts came after).
    // The gate's BEGIN IMMEDIATE and COMMIT stay db.run: kept prepared, they measured no cheaper.
    const compiled = new Map<string, number>();
    for (const method of ["prepare", "query"] as const) {
      const original = connection[method].bind(connection) as (text: string, ...rest: unknown[]) => unknown;
      Object.assign(connection, { [method]: (text: string, ...rest: unknown[]) => (compiled.set(text, (compiled.get(text) ?? 0) + 1), original(text, ...rest)) });
    }
    try {
      // 50 texts, used in turn three times: inserts of 1 to 25 rows in a transaction, then reads by IN lists of 1 to 25 ids.
      const ids = (round: number, count: number) => Array.from({ length: count }, (_, i) => `${round}-${count}-${i}`);
      for (let round = 0; round < 3; round++) {
        await engine.transaction(async () => {
          for (let count = 1; count <= 25; count++)
            await db
              .insertInto("notes")
              .values(ids(round, count).map((id) => ({ id, body: "x", size: count })))
              .execute();
        });
        for (let count = 1; count <= 25; count++) expect(await db.selectFrom("notes").select("id").where("id", "in", ids(round, count)).execute()).toHaveLength(count);
      }
      expect(compiled.size).toBeGreaterThanOrEqual(50);
      expect([...compiled].filter(([, times]) => times > 1)).toEqual([]);
    } finally {
      await engine.close();
    }
  });
});
