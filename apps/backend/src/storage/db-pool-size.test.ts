import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SQL } from "bun";
import { ConfigError, configFromEnv } from "../config.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { startTestServer, tempDir } from "../testing/test-server.ts";
import { openStorage, type Storage } from "../testing/storage.ts";
import type { SqlHandle } from "./sql-handle.ts";
import { MIGRATIONS } from "../schema.ts";

describe("WEFT_DB_POOL_SIZE", () => {
  it("is a positive integer, 10 when unset", () => {
    expect(configFromEnv({}).dbPoolSize).toBe(10);
    expect(configFromEnv({ WEFT_DB_POOL_SIZE: "3" }).dbPoolSize).toBe(3);
    for (const bad of ["0", "-1", "2.5", "many", "1001"]) {
      expect(() => configFromEnv({ WEFT_DB_POOL_SIZE: bad }), bad).toThrow(ConfigError);
    }
    expect(() => configFromEnv({ WEFT_DB_POOL_SIZE: "0" })).toThrow(/WEFT_DB_POOL_SIZE/);
  });
});

function poolOf(handle: SqlHandle): SQL {
  if (handle.engine !== "postgres") throw new Error(`expected a PostgreSQL storage, got ${handle.engine}`);
  return handle.sql;
}

describe("the PostgreSQL pool size", () => {
  let cluster: TestPostgres;
  let admin: SQL;
  beforeAll(async () => {
    cluster = await startPostgres();
    admin = new SQL(cluster.url, { max: 1 });
  });
  afterAll(async () => {
    await admin?.close();
    await cluster?.stop();
  });

  /**
   * Runs `queries` slow statements at once through the storage's pool and returns the most that were
   * executing together, as PostgreSQL saw them (pg_stat_activity).
   */
  async function mostAtOnce(storage: Storage, queries: number): Promise<number> {
    const pool = poolOf(storage.sql);
    const tag = `pool_probe_${queries}_${Date.now()}`;
    let done = false;
    const all = Promise.all(Array.from({ length: queries }, () => pool.unsafe(`SELECT pg_sleep(0.4) AS ${tag}`))).finally(() => (done = true));
    let most = 0;
    while (!done) {
      const [row] = await admin<
        { n: number }[]
      >`SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE ${`SELECT pg_sleep(0.4) AS ${tag}%`} AND pid <> pg_backend_pid()`;
      most = Math.max(most, row?.n ?? 0);
      await Bun.sleep(50);
    }
    expect(await all).toHaveLength(queries);
    return most;
  }

  it("reaches the pool through the server options: 3 connections run 3 of 8 queries at once", async () => {
    const databaseUrl = await createTestDatabase(cluster.url);
    const t = await startTestServer({ dataDir: tempDir(), databaseUrl, dbPoolSize: configFromEnv({ WEFT_DB_POOL_SIZE: "3" }).dbPoolSize });
    try {
      expect(await mostAtOnce(t.server.storage, 8)).toBe(3);
    } finally {
      await t.stop();
    }
  });

  it("is 10 when not given", async () => {
    const storage = await openStorage({ dataDir: tempDir(), databaseUrl: await createTestDatabase(cluster.url), migrations: MIGRATIONS });
    try {
      expect(await mostAtOnce(storage, 14)).toBe(10);
    } finally {
      await storage.close();
    }
  });
});
