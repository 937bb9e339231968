import { afterAll, beforeAll } from "vitest";
import { SQL } from "bun";
import { openDatabase } from "../storage/database.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { accountsContract } from "./contract/accounts.contract.ts";
import { PostgresAccountRepository } from "./postgres-account-repository.ts";
import { runPostgresMigrations } from "../storage/postgres/migrations.ts";
import { SqliteAccountRepository } from "./sqlite-account-repository.ts";

accountsContract({
  engine: "sqlite",
  async fresh() {
    const db = openDatabase(":memory:");
    // No other caller shares this connection: the gate runs each statement at once.
    const repository = new SqliteAccountRepository({ db, gate: async <T>(work: () => T): Promise<Awaited<T>> => await work() });
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
    await runPostgresMigrations(sql);
    // Migrating twice (a second process starting) changes nothing.
    await runPostgresMigrations(sql);
    return { repository: new PostgresAccountRepository({ current: () => sql }), close: () => sql.close() };
  },
});
