import type { Kysely } from "kysely";
import type { TransactionSQL } from "bun";
import { createQueryDb } from "./query-db.ts";
import { adoptLegacySqlite, NEW_FORMAT_USER_VERSION } from "./legacy-sqlite.ts";
import type { PostgresHandle, SqlHandle, SqliteHandle } from "./sql-handle.ts";

/**
 * One step of the schema, written once for both engines with Kysely's schema builder (`engine` for
 * what differs). Released steps are never edited, a change is a new step. `id` is unique and stable,
 * `<module>-NNN <what>` (e.g. "core-001 initial schema"), and recorded in `schema_migrations`.
 * A raw `sql` template runs one statement per call (bun:sqlite runs only the first of several).
 */
export interface Migration {
  id: string;
  up(db: Kysely<unknown>, engine: SqlHandle["engine"]): Promise<void>;
}

export interface MigrationResult {
  /** No step had been applied before (a new database): the caller may load example content. */
  fresh: boolean;
  /** Ids applied now, in order (empty when the schema was current). */
  applied: string[];
}

/** The database has schema steps this Weft does not know: a newer Weft wrote it. */
export class SchemaTooNewError extends Error {
  readonly code = "SCHEMA_TOO_NEW";
  constructor(what: string) {
    super(`The database has ${what} this Weft does not know: a newer Weft migrated it. Upgrade Weft, or point WEFT_DATA_DIR / WEFT_DATABASE_URL at another database. Nothing was changed.`);
  }
}

/** Arbitrary but fixed: the advisory lock key all Weft processes take while migrating (PostgreSQL). */
const MIGRATION_LOCK = 0x7765_6674;

/**
 * Applies the steps of `migrations` not yet recorded in `schema_migrations`, in order, all in one
 * transaction: a failed step leaves the schema as it was. PostgreSQL: under a transaction-level
 * advisory lock, so processes starting together wait for each other. SQLite: BEGIN IMMEDIATE; a file
 * written by Weft e5dc891 or earlier (`PRAGMA user_version`) is adopted first (legacy-sqlite.ts).
 */
export async function runMigrations(handle: SqlHandle, migrations: readonly Migration[]): Promise<MigrationResult> {
  const ids = migrations.map((m) => m.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) throw new Error(`Migration id "${twice}" appears twice in the list given to runMigrations: ids must be unique (start them with the module's name).`);
  switch (handle.engine) {
    case "sqlite":
      return await runSqlite(handle, migrations);
    case "postgres":
      return await runPostgres(handle, migrations);
  }
}

async function apply(db: Kysely<unknown>, engine: SqlHandle["engine"], migrations: readonly Migration[], done: Set<string>, record: (id: string) => Promise<void>): Promise<MigrationResult> {
  const known = new Set(migrations.map((m) => m.id));
  const unknown = [...done].filter((id) => !known.has(id)).sort();
  if (unknown.length > 0) throw new SchemaTooNewError(`schema steps (${unknown.join(", ")})`);
  const fresh = done.size === 0;
  const applied: string[] = [];
  for (const migration of migrations) {
    if (done.has(migration.id)) continue;
    await migration.up(db, engine);
    await record(migration.id);
    applied.push(migration.id);
  }
  return { fresh, applied };
}

async function runSqlite(handle: SqliteHandle, migrations: readonly Migration[]): Promise<MigrationResult> {
  const { db } = handle;
  return await handle.gate(async () => {
    db.run("BEGIN IMMEDIATE");
    try {
      const hasTable = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== null;
      db.run("CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)");
      const record = db.query("INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)");
      if (!hasTable) {
        const ids = migrations.map((m) => m.id);
        const adopted = adoptLegacySqlite(db, ids);
        if (!Array.isArray(adopted)) throw new SchemaTooNewError(adopted.tooNew);
        for (const id of adopted) record.run(id, Date.now());
      }
      const done = new Set((db.query("SELECT id FROM schema_migrations").all() as { id: string }[]).map((r) => r.id));
      const result = await apply(createQueryDb(handle), "sqlite", migrations, done, async (id) => void record.run(id, Date.now()));
      // e5dc891 and earlier read user_version: past their last version, they refuse this file instead of migrating it.
      db.run(`PRAGMA user_version = ${NEW_FORMAT_USER_VERSION}`);
      db.run("COMMIT");
      return result;
    } catch (error) {
      if (db.inTransaction) db.run("ROLLBACK");
      throw error;
    }
  });
}

async function runPostgres(handle: PostgresHandle, migrations: readonly Migration[]): Promise<MigrationResult> {
  return await handle.sql.begin(async (tx: TransactionSQL) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`;
    const done = new Set((await tx<{ id: string }[]>`SELECT id FROM schema_migrations`).map((r) => r.id));
    const db = createQueryDb<unknown>({ engine: "postgres", sql: handle.sql, current: () => tx });
    return await apply(db, "postgres", migrations, done, async (id) => {
      await tx`INSERT INTO schema_migrations (id, applied_at) VALUES (${id}, ${Date.now()})`;
    });
  });
}
