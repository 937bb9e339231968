import type { Database } from "bun:sqlite";

/** One step of a module's own SQLite tables: released steps are never edited, a change is a new step. */
export interface SqliteModuleMigration {
  version: number;
  sql: string;
}

/**
 * Brings one module's SQLite tables up to date, one transaction per step. Each module keeps its own
 * version row (`module_schema`), so its steps never compete with the storage's numbered migrations
 * (storage/migrations.ts) for a version.
 */
export function migrateSqliteModule(db: Database, module: string, steps: readonly SqliteModuleMigration[]): void {
  db.exec("CREATE TABLE IF NOT EXISTS module_schema (module TEXT PRIMARY KEY, version INTEGER NOT NULL)");
  const row = db.query("SELECT version FROM module_schema WHERE module = ?").get(module) as { version: number } | null;
  const current = row?.version ?? 0;
  for (const step of steps) {
    if (step.version <= current) continue;
    db.transaction(() => {
      db.exec(step.sql);
      db.query("INSERT INTO module_schema (module, version) VALUES (?, ?) ON CONFLICT (module) DO UPDATE SET version = excluded.version").run(module, step.version);
    })();
  }
}
