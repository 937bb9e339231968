import type { Database } from "bun:sqlite";

/**
 * SQLite files written by Weft e5dc891 and earlier kept their schema in `PRAGMA user_version` (core,
 * Builder and scene steps, 1–9) and `module_schema` rows (accounts, credentials, agent changes), and
 * the payload store created its table when it first opened. The migration list is a squash of that
 * schema under PostgreSQL's ids, so such a file at the last versions already has every table: its ids
 * are recorded as applied, nothing else changes.
 */
const LAST_LEGACY_VERSION = 9;

/** Written by the runner once migrated: e5dc891 and earlier refuse a file past their last version. */
export const NEW_FORMAT_USER_VERSION = LAST_LEGACY_VERSION + 1;

/** The ids whose tables a file at user_version 9 has. */
const CORE_IDS = [
  "core-001 initial schema",
  "core-002 workflow ids announced",
  "builder-001 sessions, change sets, working copies, audit events",
  "scenes-001 scene runtime state, session log and sessions",
  "scenes-002 scene state saved in parts",
  "credentials-001 credentials for http.request",
];

/** `module_schema` rows: module name → the ids its version 1 corresponds to (every module's last legacy version is 1). */
const MODULE_IDS: Record<string, string[]> = {
  accounts: ["accounts-001 users, sessions, personal tokens"],
  credentials: ["credentials-002 hosts and roles a credential is bound to"],
  "agent-changes": ["agent-changes-001 who changed agent profiles"],
};
const LAST_MODULE_VERSION = 1;

/** The payload store made its table on first use, not through a numbered step. */
const PAYLOADS_ID = "payloads-001 large values stored once";

/** A file from before e5dc891's last schema: that Weft must upgrade it first. */
export class SchemaTooOldError extends Error {
  readonly code = "SCHEMA_TOO_OLD";
  constructor(what: string) {
    super(
      `The database has ${what}, older than this Weft can upgrade. Open it once with Weft e5dc891 (git commit e5dc891), which brings it to schema version ${LAST_LEGACY_VERSION}, then with this Weft. Nothing was changed.`,
    );
  }
}

/**
 * The ids to record as applied (inside the runner's transaction): none for a new file or one with
 * `schema_migrations`; those of `known` whose tables a legacy file has; `tooNew` for
 * versions no Weft of that format wrote. Throws SchemaTooOldError for a file below the last legacy versions.
 */
export function adoptLegacySqlite(db: Database, known: readonly string[]): string[] | { tooNew: string } {
  const hasTable = (name: string) => db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== null;
  const version = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  if (version === 0 || hasTable("schema_migrations")) return [];
  if (version < LAST_LEGACY_VERSION) throw new SchemaTooOldError(`schema version ${version}`);
  if (version > LAST_LEGACY_VERSION) return { tooNew: `schema version ${version}` };
  const ids = [...CORE_IDS];
  if (hasTable("module_schema")) {
    for (const { module, version: moduleVersion } of db.query("SELECT module, version FROM module_schema").all() as { module: string; version: number }[]) {
      const moduleIds = MODULE_IDS[module];
      if (!moduleIds || moduleVersion > LAST_MODULE_VERSION) return { tooNew: `module "${module}" at version ${moduleVersion}` };
      if (moduleVersion < LAST_MODULE_VERSION) throw new SchemaTooOldError(`module "${module}" at version ${moduleVersion}`);
      ids.push(...moduleIds);
    }
  }
  if (hasTable("payloads")) ids.push(PAYLOADS_ID);
  return ids.filter((id) => known.includes(id));
}
