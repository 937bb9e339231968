import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SQL } from "bun";
import { openPostgresStorage } from "../testing/storage.ts";
import { runMigrations } from "./migrations.ts";
import { MIGRATIONS } from "../schema.ts";
import { PostgresConnection } from "./postgres-connection.ts";
import { storageContract } from "../testing/storage-contract/index.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";

/** The connection and transactions a storage engine has, on `pool`. */
function engineOn(pool: SQL) {
  const sql = new PostgresConnection(pool);
  return { sql, transaction: <T>(work: () => Promise<T>) => sql.transaction(work) };
}

// One cluster and one migrated database for this file; each contract test starts from it emptied
// (TRUNCATE takes milliseconds where CREATE DATABASE takes a second on a busy machine).
let cluster: TestPostgres;
let contractUrl: string;
let admin: SQL;
beforeAll(async () => {
  cluster = await startPostgres();
  contractUrl = await createTestDatabase(cluster.url);
  await runMigrations(engineOn((admin = new SQL(contractUrl, { max: 1 }))), MIGRATIONS);
});
afterAll(async () => {
  await admin?.close();
  await cluster?.stop();
});

storageContract({
  engine: "postgres",
  async freshDatabase() {
    const tables = await admin<{ name: string }[]>`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'`;
    await admin.unsafe(`TRUNCATE ${tables.map((t) => `"${t.name}"`).join(", ")} RESTART IDENTITY CASCADE`);
    return { open: (redactor) => openPostgresStorage(contractUrl, redactor, MIGRATIONS, { maxConnections: 4 }) };
  },
});

describe("PostgreSQL migrations", () => {
  it("create the schema once, record every step, and let processes starting together wait for each other", async () => {
    const url = await createTestDatabase(cluster.url);
    const pools = Array.from({ length: 4 }, () => new SQL(url, { max: 2 }));
    try {
      const results = await Promise.all(pools.map((pool) => runMigrations(engineOn(pool), MIGRATIONS)));
      const ids = MIGRATIONS.map((m) => m.id);
      // Exactly one process applied the steps; the others found them applied.
      expect(results.filter((applied) => applied.length > 0)).toEqual([ids]);
      expect(results.filter((applied) => applied.length === 0)).toHaveLength(3);
      const recorded = await pools[0]<{ id: string }[]>`SELECT id FROM schema_migrations ORDER BY applied_at, id`;
      expect(recorded.map((r) => r.id).sort()).toEqual([...ids].sort());
      expect(await runMigrations(engineOn(pools[1]), MIGRATIONS)).toEqual([]);
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
    }
  });

  it("refuse a database migrated by a newer Weft instead of changing it", async () => {
    const url = await createTestDatabase(cluster.url);
    const pool = new SQL(url, { max: 1 });
    try {
      await runMigrations(engineOn(pool), MIGRATIONS);
      await pool`INSERT INTO schema_migrations (id, applied_at) VALUES ('core-999 from the future', 1)`;
      await expect(openPostgresStorage(url)).rejects.toMatchObject({ code: "SCHEMA_TOO_NEW", message: expect.stringContaining("core-999 from the future") });
    } finally {
      await pool.close();
    }
  });

  it("refuse an unreachable database with a coded error that does not show the password", async () => {
    const port = new URL(cluster.url).port;
    const error = await openPostgresStorage(`postgres://weft:hunter2-secret@127.0.0.1:${port}/no_such_database`).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "DATABASE_UNAVAILABLE" });
    expect(String((error as Error).message)).not.toContain("hunter2-secret");
    expect(String((error as Error).message)).toContain("no_such_database");
  });
});
