import type { SQL } from "bun";
import { sweepPostgres } from "./payload-sweep.ts";
import { FINISHED_RUN_STATUSES, RESTING_SCENE_STATUSES, type CompactionCutoffs, type CompactReport } from "./compaction.ts";

const quoted = (values: readonly string[]) => values.map((v) => `'${v}'`).join(", ");

/** Rolls a dry run's transaction back once everything was counted. */
class DryRunRollback extends Error {}

async function deleted(tx: SQL, statement: string, params: unknown[]): Promise<number> {
  const rows = (await tx.unsafe(`WITH gone AS (${statement} RETURNING 1) SELECT count(*)::int AS n FROM gone`, params)) as { n: number }[];
  return rows[0]?.n ?? 0;
}

/**
 * Removes on PostgreSQL what the cutoffs let go, in one transaction (rolled back on a dry run), then
 * ANALYZE. Plain DELETEs: autovacuum reuses the space, and a VACUUM FULL would lock the tables.
 */
export async function compactPostgres(sql: SQL, cutoffs: CompactionCutoffs, dryRun: boolean, payloads: boolean): Promise<CompactReport> {
  const report: CompactReport = { engine: "postgres", dryRun, runs: 0, observations: 0, runEvents: 0, sceneLogs: 0, sceneLogEntries: 0, sceneEvents: 0, payloads: 0 };
  try {
    await sql.begin(async (tx) => {
      if (cutoffs.runsBefore !== undefined || cutoffs.runsPerWorkflow !== undefined) {
        await tx.unsafe("CREATE TEMP TABLE compact_runs (id TEXT PRIMARY KEY) ON COMMIT DROP");
        await tx.unsafe(
          `INSERT INTO compact_runs (id)
           SELECT id FROM (SELECT id, status, created_at, ROW_NUMBER() OVER (PARTITION BY workflow_id ORDER BY created_at DESC, id DESC) AS newest FROM runs) ranked
           WHERE status IN (${quoted(FINISHED_RUN_STATUSES)}) AND (($1::bigint IS NOT NULL AND created_at < $1::bigint) OR ($2::bigint IS NOT NULL AND newest > $2::bigint))`,
          [cutoffs.runsBefore ?? null, cutoffs.runsPerWorkflow ?? null],
        );
        report.observations = await deleted(tx, "DELETE FROM observations WHERE run_id IN (SELECT id FROM compact_runs)", []);
        report.runEvents = await deleted(tx, "DELETE FROM events WHERE stream_id IN (SELECT id FROM compact_runs)", []);
        report.runs = await deleted(tx, "DELETE FROM runs WHERE id IN (SELECT id FROM compact_runs)", []);
      }
      // Scene tables come with the scenes' own PostgreSQL migration; without them there are no scene logs to remove.
      const [tables] = (await tx.unsafe("SELECT to_regclass('scene_log') IS NOT NULL AND to_regclass('scene_states') IS NOT NULL AS present")) as { present: boolean }[];
      if (cutoffs.scenesBefore !== undefined && tables?.present === true) {
        const resting = `SELECT scene_id FROM scene_states WHERE status IN (${quoted(RESTING_SCENE_STATUSES)}) AND saved_at < $1::bigint`;
        const counted = (await tx.unsafe(`SELECT count(DISTINCT scene_id)::int AS n FROM scene_log WHERE scene_id IN (${resting})`, [cutoffs.scenesBefore])) as { n: number }[];
        report.sceneLogs = counted[0]?.n ?? 0;
        report.sceneLogEntries = await deleted(tx, `DELETE FROM scene_log WHERE scene_id IN (${resting})`, [cutoffs.scenesBefore]);
        report.sceneEvents = await deleted(
          tx,
          `DELETE FROM events WHERE stream_id IN (SELECT id FROM scenes UNION SELECT scene_id FROM scene_states)
           AND (data::jsonb ->> 'ts')::double precision < $1::double precision
           AND seq < (SELECT max(e.seq) FROM events e WHERE e.stream_id = events.stream_id)`,
          [cutoffs.scenesBefore],
        );
      }
      if (payloads) report.payloads = await sweepPostgres(tx);
      if (dryRun) throw new DryRunRollback();
    });
  } catch (error) {
    if (!(error instanceof DryRunRollback)) throw error;
    return report;
  }
  await sql.unsafe(payloads ? "ANALYZE runs, observations, events, payloads" : "ANALYZE runs, observations, events");
  return report;
}
