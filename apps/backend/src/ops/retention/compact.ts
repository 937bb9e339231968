import type { Database } from "bun:sqlite";
import { createQueryDb } from "../../storage/query-db.ts";
import type { SqlHandle } from "../../storage/sql-handle.ts";
import { cutoffsOf, removeExpired, type CompactReport } from "./compaction.ts";
import { sweepPostgres, sweepSqlite } from "./payload-sweep.ts";
import type { RetentionPolicy } from "./retention-settings.ts";

export { describeReport, type CompactReport } from "./compaction.ts";

/** Rolls a dry run's PostgreSQL transaction back once everything was counted. */
class DryRunRollback extends Error {}

/**
 * Applies the retention policy: finished runs past the limits with their observations and events,
 * session logs of scenes at rest past the limit, old scene stream events, and old document versions (never one a
 * remaining run ran); documents stay. With
 * `payloads`, also the stored payloads nothing references any more (only while no Weft process runs).
 * One transaction (rolled back on a dry run), then the space goes back: SQLite ANALYZE and VACUUM (the
 * CLI owns this connection; a running server's waits on the file lock); PostgreSQL ANALYZE only, as
 * autovacuum reuses the space and a VACUUM FULL would lock the tables.
 */
export async function compact(handle: SqlHandle, policy: RetentionPolicy, options: { now?: number; dryRun?: boolean; payloads?: boolean } = {}): Promise<CompactReport> {
  const cutoffs = cutoffsOf(policy, options.now ?? Date.now());
  const dryRun = options.dryRun ?? false;
  // Only when asked: safe only while no Weft process runs (see payload-sweep.ts).
  const payloads = options.payloads ?? false;
  const report: CompactReport = { engine: handle.engine, dryRun, runs: 0, observations: 0, runEvents: 0, sceneLogs: 0, sceneLogEntries: 0, sceneEvents: 0, versions: 0, payloads: 0 };
  switch (handle.engine) {
    case "sqlite": {
      const { db } = handle;
      const bytesBefore = fileBytes(db);
      db.exec("BEGIN IMMEDIATE");
      try {
        await removeExpired(createQueryDb(handle), "sqlite", cutoffs, report);
        if (payloads) report.payloads = sweepSqlite(db);
        db.exec(dryRun ? "ROLLBACK" : "COMMIT");
      } catch (error) {
        db.exec("ROLLBACK");
        throw error;
      }
      if (dryRun) return report;
      db.exec("ANALYZE");
      db.exec("VACUUM");
      // In WAL mode VACUUM's pages sit in the -wal file until a checkpoint copies them back.
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      return { ...report, bytesBefore, bytesAfter: fileBytes(db) };
    }
    case "postgres":
      try {
        await handle.sql.begin(async (tx) => {
          await removeExpired(createQueryDb({ engine: "postgres", sql: tx, current: () => tx }), "postgres", cutoffs, report);
          if (payloads) report.payloads = await sweepPostgres(tx);
          if (dryRun) throw new DryRunRollback();
        });
      } catch (error) {
        if (!(error instanceof DryRunRollback)) throw error;
        return report;
      }
      await handle.sql.unsafe(payloads ? "ANALYZE runs, observations, events, payloads" : "ANALYZE runs, observations, events");
      return report;
  }
}

function fileBytes(db: Database): number {
  const pages = (db.query("PRAGMA page_count").get() as { page_count: number }).page_count;
  const size = (db.query("PRAGMA page_size").get() as { page_size: number }).page_size;
  return pages * size;
}
