import type { Database } from "bun:sqlite";
import { sweepSqlite } from "./payload-sweep.ts";
import { FINISHED_RUN_STATUSES, RESTING_SCENE_STATUSES, type CompactionCutoffs, type CompactReport } from "./compaction.ts";

const quoted = (values: readonly string[]) => values.map((v) => `'${v}'`).join(", ");

/**
 * Removes on SQLite what the cutoffs let go, in one transaction (rolled back on a dry run), then
 * ANALYZE and VACUUM give the space back to the file system. Statements on `db` directly: the CLI
 * owns this connection; a running server's own connection waits on the file lock (busy_timeout).
 */
export function compactSqlite(db: Database, cutoffs: CompactionCutoffs, dryRun: boolean, payloads: boolean): CompactReport {
  const report: CompactReport = { engine: "sqlite", dryRun, runs: 0, observations: 0, runEvents: 0, sceneLogs: 0, sceneLogEntries: 0, sceneEvents: 0, payloads: 0 };
  const bytesBefore = fileBytes(db);
  db.exec("BEGIN IMMEDIATE");
  try {
    removeRuns(db, cutoffs, report);
    removeSceneLogs(db, cutoffs, report);
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

function removeRuns(db: Database, cutoffs: CompactionCutoffs, report: CompactReport): void {
  if (cutoffs.runsBefore === undefined && cutoffs.runsPerWorkflow === undefined) return;
  db.exec("CREATE TEMP TABLE IF NOT EXISTS compact_runs (id TEXT PRIMARY KEY) WITHOUT ROWID");
  db.exec("DELETE FROM compact_runs");
  // Newest first per workflow, unfinished runs counted too: "keep 10" keeps the 10 latest, whatever state they are in.
  db.query(
    `INSERT INTO compact_runs (id)
     SELECT id FROM (SELECT id, status, created_at, ROW_NUMBER() OVER (PARTITION BY workflow_id ORDER BY created_at DESC, id DESC) AS newest FROM runs)
     WHERE status IN (${quoted(FINISHED_RUN_STATUSES)}) AND ((?1 IS NOT NULL AND created_at < ?1) OR (?2 IS NOT NULL AND newest > ?2))`,
  ).run(cutoffs.runsBefore ?? null, cutoffs.runsPerWorkflow ?? null);
  report.observations = db.query("DELETE FROM observations WHERE run_id IN (SELECT id FROM compact_runs)").run().changes;
  report.runEvents = db.query("DELETE FROM events WHERE stream_id IN (SELECT id FROM compact_runs)").run().changes;
  report.runs = db.query("DELETE FROM runs WHERE id IN (SELECT id FROM compact_runs)").run().changes;
  db.exec("DELETE FROM compact_runs");
}

function removeSceneLogs(db: Database, cutoffs: CompactionCutoffs, report: CompactReport): void {
  if (cutoffs.scenesBefore === undefined) return;
  const resting = `SELECT scene_id FROM scene_states WHERE status IN (${quoted(RESTING_SCENE_STATUSES)}) AND saved_at < ?1`;
  report.sceneLogs = (db.query(`SELECT count(DISTINCT scene_id) AS n FROM scene_log WHERE scene_id IN (${resting})`).get(cutoffs.scenesBefore) as { n: number }).n;
  report.sceneLogEntries = db.query(`DELETE FROM scene_log WHERE scene_id IN (${resting})`).run(cutoffs.scenesBefore).changes;
  // Old events of every scene's stream, the last one kept: the journal numbers a stream on from its highest seq.
  report.sceneEvents = db
    .query(
      `DELETE FROM events WHERE stream_id IN (SELECT id FROM scenes UNION SELECT scene_id FROM scene_states)
       AND json_extract(data, '$.ts') < ?1
       AND seq < (SELECT max(e.seq) FROM events e WHERE e.stream_id = events.stream_id)`,
    )
    .run(cutoffs.scenesBefore).changes;
}

function fileBytes(db: Database): number {
  const pages = (db.query("PRAGMA page_count").get() as { page_count: number }).page_count;
  const size = (db.query("PRAGMA page_size").get() as { page_size: number }).page_size;
  return pages * size;
}
