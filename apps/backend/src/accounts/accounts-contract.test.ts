import { afterAll, beforeAll } from "vitest";
import { SQL } from "bun";
import { SecretRedactor } from "@weft/types";
import { openDatabase } from "../storage/database.ts";
import { runMigrations } from "../storage/migrations.ts";
import { PostgresConnection } from "../storage/postgres-connection.ts";
import type { SqlHandle, Transact } from "../storage/sql-handle.ts";
import { SqliteGate } from "../storage/sqlite-gate.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { accountsContract } from "./contract/accounts.contract.ts";
import { ACCOUNT_MIGRATIONS } from "./account-migrations.ts";
import { AccountTable } from "./account-repository.ts";

/** The accounts' tables alone on `handle`, migrated twice (a second process starting changes nothing). */
async function repositoryOn(handle: SqlHandle, transact: Transact) {
  const engine = { sql: handle, transaction: transact, redactor: new SecretRedactor() };
  await runMigrations(engine, ACCOUNT_MIGRATIONS);
  await runMigrations(engine, ACCOUNT_MIGRATIONS);
  return new AccountTable(engine);
}

accountsContract({
  engine: "sqlite",
  async fresh() {
    const db = openDatabase(":memory:");
    const gate = new SqliteGate(db);
    const repository = await repositoryOn({ engine: "sqlite", db, gate: (work) => gate.run(work) }, (work) => gate.transaction(work));
    return {
      repository,
      close: async () => db.close(),
      failUserDeletes: async () => void db.run("CREATE TRIGGER no_user_delete BEFORE DELETE ON users BEGIN SELECT RAISE(ABORT, 'no user deletes'); END"),
    };
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
    const connection = new PostgresConnection(sql);
    return {
      repository: await repositoryOn(connection, (work) => connection.transaction(work)),
      close: () => sql.close(),
      failUserDeletes: async () => {
        await sql`CREATE FUNCTION no_user_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no user deletes'; END $$`;
        await sql`CREATE TRIGGER no_user_delete BEFORE DELETE ON users FOR EACH ROW EXECUTE FUNCTION no_user_delete()`;
      },
    };
  },
});
