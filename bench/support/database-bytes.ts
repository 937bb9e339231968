import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { DATABASE_FILE } from "../../apps/backend/src/storage/storage.ts";

/** Bytes of the SQLite database in a data folder, with its WAL and shared-memory files. */
export function databaseBytes(dataDir: string): number {
  return readdirSync(dataDir)
    .filter((f) => f.startsWith(DATABASE_FILE))
    .reduce((sum, f) => sum + statSync(join(dataDir, f)).size, 0);
}
