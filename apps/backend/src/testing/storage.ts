import { SecretRedactor } from "@weft/types";
import type { Migration } from "../storage/migrations.ts";
import type { SqlHandle, SqliteHandle } from "../storage/sql-handle.ts";
import { MIGRATIONS } from "../schema.ts";
import { openAppStorage, type Storage } from "../app-storage.ts";

export type { Storage } from "../app-storage.ts";

export { DATABASE_FILE, type StorageOptions } from "../storage/storage.ts";

/** The full storage (every core repository) on SQLite in `dataDir`, migrated with `migrations` (every module's tables by default: the runs table has columns added since the core step). */
export async function openSqliteStorage(dataDir: string, redactor = new SecretRedactor(), migrations: readonly Migration[] = MIGRATIONS): Promise<Storage> {
  return await openAppStorage({ dataDir, redactor, migrations });
}

/** The full storage on PostgreSQL at `url`. */
export async function openPostgresStorage(url: string, redactor = new SecretRedactor(), migrations: readonly Migration[] = MIGRATIONS, options: { maxConnections?: number } = {}): Promise<Storage> {
  return await openAppStorage({ dataDir: "", databaseUrl: url, redactor, migrations, ...(options.maxConnections !== undefined ? { poolSize: options.maxConnections } : {}) });
}

/** The full storage the options select. */
export const openStorage = openAppStorage;

/** A test or contract that has only a SQLite side was given a PostgreSQL storage. */
export class StorageEngineUnsupportedError extends Error {
  readonly code = "STORAGE_ENGINE_UNSUPPORTED";
  constructor(what: string, engine: SqlHandle["engine"]) {
    super(`${what} does not support the ${engine} storage engine yet.`);
  }
}

/** The SQLite connection, for a test that reads SQLite's file directly. */
export function requireSqlite(handle: SqlHandle, what: string): SqliteHandle {
  if (handle.engine !== "sqlite") throw new StorageEngineUnsupportedError(what, handle.engine);
  return handle;
}
