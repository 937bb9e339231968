import { afterAll, beforeAll } from "vitest";
import type { StorageHarness } from "./storage-contract/harness.ts";
import { openSqliteStorage, openStorage } from "./storage.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "./postgres-server.ts";
import { removeDir, tempDir } from "./test-server.ts";
import { MIGRATIONS } from "../schema.ts";

/**
 * The storage engines a contract suite runs on, for a test file: SQLite in a temp folder, and a real
 * PostgreSQL cluster started for the file (a new database per test). Call at the top of the file.
 */
export function storageEngines(): StorageHarness[] {
  const dirs: string[] = [];
  let pg: TestPostgres | undefined;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(async () => {
    await pg?.stop();
    dirs.splice(0).forEach(removeDir);
  });
  const dataDir = (): string => {
    const dir = tempDir("weft-contract-");
    dirs.push(dir);
    return dir;
  };
  const sqlite: StorageHarness = {
    engine: "sqlite",
    async freshDatabase() {
      const dir = dataDir();
      return { open: async (redactor) => openSqliteStorage(dir, redactor, MIGRATIONS) };
    },
  };
  const postgres: StorageHarness = {
    engine: "postgres",
    async freshDatabase() {
      if (!pg) throw new Error("The test PostgreSQL cluster did not start (see beforeAll).");
      const databaseUrl = await createTestDatabase(pg.url);
      const dir = dataDir();
      return {
        async open(redactor) {
          const storage = await openStorage({ dataDir: dir, databaseUrl, ...(redactor ? { redactor } : {}), migrations: MIGRATIONS });
          // A suite that silently ran on SQLite would prove nothing about PostgreSQL.
          if (storage.sql.engine !== "postgres") throw new Error(`openStorage with a postgres:// URL gave a ${storage.sql.engine} storage`);
          return storage;
        },
      };
    },
  };
  return [sqlite, postgres];
}
