/**
 * `bun bench/query-layer.bench.ts`: what the query layer under the repositories costs per call on SQLite
 * (storage/query-db.ts, prepared-query.ts, sqlite-gate.ts), on a storage opened as the server opens it
 * (WAL file, gate, checkpointer) with one small table: a point read built by Kysely on every call, the same
 * read as a prepared shape (`PreparedQueries`, as repositories' `hot` queries), a transaction of one update,
 * and one with a nested transaction (a savepoint). Prints one JSON line per case: CPU µs per call (this
 * process's user + system time, after a warm-up). BENCH_CALLS: calls per case (20000 by default).
 */
import { SecretRedactor } from "../packages/types/src/index.ts";
import { openStorage } from "../apps/backend/src/storage/storage.ts";
import { createQueryDb } from "../apps/backend/src/storage/query-db.ts";
import { PreparedQueries } from "../apps/backend/src/storage/prepared-query.ts";
import type { Migration } from "../apps/backend/src/storage/migrations.ts";
import { removeDir, tempDir } from "../apps/backend/src/testing/temp-dirs.ts";

const CALLS = Number(process.env.BENCH_CALLS ?? 20000);
const KEYS = 100;

interface DB {
  items: { id: string; n: number };
}
const ITEMS: Migration = {
  id: "bench-001 items",
  async up(db) {
    await db.schema
      .createTable("items")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("n", "integer", (c) => c.notNull())
      .execute();
  },
};

const dir = tempDir("weft-query-layer-bench-");
const engine = await openStorage({ dataDir: dir, redactor: new SecretRedactor(), migrations: [ITEMS] }, async (opened) => opened);
try {
  const db = createQueryDb<DB>(engine.sql);
  const hot = new PreparedQueries(engine.sql);
  await db
    .insertInto("items")
    .values(Array.from({ length: KEYS }, (_, i) => ({ id: `k${i}`, n: i })))
    .execute();
  const key = (i: number) => `k${i % KEYS}`;
  const update = (i: number) =>
    hot.run(
      "update",
      (slot) =>
        db
          .updateTable("items")
          .set({ n: slot(0) })
          .where("id", "=", slot(1)),
      [i, key(i)],
    );
  const cases: Record<string, (i: number) => Promise<unknown>> = {
    kysely_select: (i) => db.selectFrom("items").select("n").where("id", "=", key(i)).executeTakeFirst(),
    prepared_select: (i) => hot.rows("select", (slot) => db.selectFrom("items").select("n").where("id", "=", slot(0)), [key(i)]),
    transaction_one_update: (i) => engine.transaction(() => update(i)),
    transaction_savepoint_update: (i) => engine.transaction(() => engine.transaction(() => update(i))),
  };
  for (const [name, call] of Object.entries(cases)) {
    for (let i = 0; i < CALLS / 10; i++) await call(i);
    const before = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) await call(i);
    const used = process.cpuUsage(before);
    console.log(JSON.stringify({ bench: "query-layer", case: name, calls: CALLS, cpu_us_per_call: Math.round(((used.user + used.system) / CALLS) * 100) / 100 }));
  }
} finally {
  await engine.close();
  removeDir(dir);
}
