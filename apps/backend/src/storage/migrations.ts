import { sql, type Kysely } from "kysely";
import { createQueryDb } from "./query-db.ts";
import { adoptLegacySqlite, NEW_FORMAT_USER_VERSION } from "./legacy-sqlite.ts";
import type { SqlHandle, Transact } from "./sql-handle.ts";

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

/** The database has schema steps this Weft does not know: a newer Weft wrote it. */
export class SchemaTooNewError extends Error {
  readonly code = "SCHEMA_TOO_NEW";
  constructor(what: string) {
    super(`The database has ${what} this Weft does not know: a newer Weft migrated it. Upgrade Weft, or point WEFT_DATA_DIR / WEFT_DATABASE_URL at another database. Nothing was changed.`);
  }
}

/** Arbitrary but fixed: the advisory lock key all Weft processes take while migrating (PostgreSQL). */
const MIGRATION_LOCK = 0x7765_6674;

/** The runner's own table, alike on both engines. */
interface MigrationsDb {
  schema_migrations: { id: string; applied_at: number };
}

/**
 * Applies the steps of `migrations` not yet recorded in `schema_migrations`, in order, all in one of the
 * engine's (a `StorageEngine`'s) transactions: a failed step leaves the schema as it was. PostgreSQL: under a
 * transaction-level advisory lock, so processes starting together wait for each other. SQLite: BEGIN IMMEDIATE;
 * a file written by Weft e5dc891 or earlier (`PRAGMA user_version`) is adopted first (legacy-sqlite.ts).
 * Answers the ids applied now (none when the schema was current).
 */
export async function runMigrations(engine: { sql: SqlHandle; transaction: Transact }, migrations: readonly Migration[]): Promise<string[]> {
  const ids = migrations.map((m) => m.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) throw new Error(`Migration id "${twice}" appears twice in the list given to runMigrations: ids must be unique (start them with the module's name).`);
  const handle = engine.sql;
  const db = createQueryDb<MigrationsDb>(handle);
  return await engine.transaction(async () => {
    if (handle.engine === "postgres") await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(db);
    const adopted = handle.engine === "sqlite" ? adoptLegacySqlite(handle.db, ids) : [];
    if (!Array.isArray(adopted)) throw new SchemaTooNewError(adopted.tooNew);
    await sql`CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`.execute(db);
    const record = (id: string) => db.insertInto("schema_migrations").values({ id, applied_at: Date.now() }).execute();
    for (const id of adopted) await record(id);
    const done = new Set((await db.selectFrom("schema_migrations").select("id").execute()).map((r) => r.id));
    const unknown = [...done].filter((id) => !ids.includes(id)).sort();
    if (unknown.length > 0) throw new SchemaTooNewError(`schema steps (${unknown.join(", ")})`);
    const applied = migrations.filter((m) => !done.has(m.id));
    for (const migration of applied) {
      await migration.up(db as Kysely<unknown>, handle.engine);
      await record(migration.id);
    }
    // e5dc891 and earlier read user_version: past their last version, they refuse this file instead of migrating it.
    if (handle.engine === "sqlite") handle.db.run(`PRAGMA user_version = ${NEW_FORMAT_USER_VERSION}`);
    return applied.map((m) => m.id);
  });
}
