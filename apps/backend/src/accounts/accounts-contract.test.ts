import { afterAll, beforeAll } from "vitest";
import { SQL } from "bun";
import { openDatabase } from "../storage/database.ts";
import { runMigrations } from "../storage/migrations.ts";
import type { SqlHandle } from "../storage/sql-handle.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { accountsContract } from "./contract/accounts.contract.ts";
import { ACCOUNT_MIGRATIONS } from "./account-migrations.ts";
import { openAccountRepository } from "./account-repository.ts";

/** The accounts' tables alone on `handle`, migrated twice (a second process starting changes nothing). */
async function repositoryOn(handle: SqlHandle) {
  await runMigrations(handle, ACCOUNT_MIGRATIONS);
  await runMigrations(handle, ACCOUNT_MIGRATIONS);
  return await openAccountRepository(handle);
}

accountsContract({
  engine: "sqlite",
  async fresh() {
    const db = openDatabase(":memory:");
    // No other caller shares this connection: the gate runs each statement at once.
    const repository = await repositoryOn({ engine: "sqlite", db, gate: async <T>(work: () => T): Promise<Awaited<T>> => await work() });
    return { repository, close: async () => db.close() };
  },
});

let cluster: TestPostgres | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.stop());

accountsContract({
  engine: "postgres",
  async fresh() {
    if (!cluster) throw new Error("the test PostgreSQL did not start");
    const sql = new SQL(await createTestDatabase(cluster.url), { max: 4 });
    return { repository: await repositoryOn({ engine: "postgres", sql, current: () => sql }), close: () => sql.close() };
  },
});
