import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { BASELINE_MIGRATIONS } from "../schema.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { tempDir } from "../testing/test-server.ts";
import { dumpPostgresSchema, dumpSqliteSchema } from "../testing/schema-dump.ts";
import { DATABASE_FILE, openPostgresStorage, openSqliteStorage } from "../testing/storage.ts";

/** What Weft e5dc891's own server created on a fresh database (../testing/make-schema-fixtures.ts). */
const fixture = (engine: string): unknown => JSON.parse(readFileSync(new URL(`./fixtures/e5dc891-schema.${engine}.json`, import.meta.url), "utf8"));

let cluster: TestPostgres | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.stop());

// A file adopted from e5dc891 (legacy-sqlite.ts) keeps its schema: a fresh one must get the same.
describe("a fresh database migrated with the baseline steps has e5dc891's schema", () => {
  it("on SQLite", async () => {
    const dir = tempDir();
    await (await openSqliteStorage(dir, undefined, BASELINE_MIGRATIONS)).close();
    const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
    try {
      expect(dumpSqliteSchema(db)).toEqual(fixture("sqlite"));
    } finally {
      db.close();
    }
  });

  it("on PostgreSQL", async () => {
    if (!cluster) throw new Error("the test PostgreSQL did not start");
    const url = await createTestDatabase(cluster.url);
    await (await openPostgresStorage(url, undefined, BASELINE_MIGRATIONS, { maxConnections: 2 })).close();
    const sql = new SQL(url, { max: 1 });
    try {
      expect(await dumpPostgresSchema(sql)).toEqual(fixture("postgres"));
    } finally {
      await sql.close();
    }
  });
});
