import type { Logger, SecretRedactor } from "@weft/types";
import { ensurePrivateDataDir } from "../storage/private-data-dir.ts";
import { openStorage, type Storage } from "../storage/storage.ts";
import type { Migration } from "../storage/migrations.ts";
import { PayloadStore } from "../events/payload-store.ts";
import { withPayloadReads } from "../events/payload-reads.ts";

export interface ProcessStorageOptions {
  /** The data folder (created when missing, made private: see ensurePrivateDataDir): without `databaseUrl`, the SQLite file is in it. */
  dataDir: string;
  /** PostgreSQL instead of SQLite. */
  databaseUrl?: string | undefined;
  /** PostgreSQL connections at most. */
  dbPoolSize?: number | undefined;
  /** The process's redactor: what is stored is redacted with it. */
  redactor: SecretRedactor;
  /** Every module's schema steps (the composition's list, ../schema.ts). */
  migrations: readonly Migration[];
  /** Where a data folder that cannot be made private is reported. */
  log: Logger;
}

/**
 * The storage an API process and a `weft worker` open alike: large values of runs, observations and
 * events are stored once and referenced (`payloads`, which the event journal writes through), and
 * every reader of `storage` gets them whole. The caller closes `storage`.
 */
export async function openProcessStorage(options: ProcessStorageOptions): Promise<{ storage: Storage; payloads: PayloadStore }> {
  ensurePrivateDataDir(options.dataDir, options.log);
  const opened = await openStorage({
    dataDir: options.dataDir,
    ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
    ...(options.dbPoolSize !== undefined ? { poolSize: options.dbPoolSize } : {}),
    redactor: options.redactor,
    migrations: options.migrations,
  });
  const payloads = new PayloadStore(opened.sql);
  return { storage: withPayloadReads(opened, payloads), payloads };
}
