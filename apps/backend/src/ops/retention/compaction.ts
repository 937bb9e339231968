import { sql, type Kysely } from "kysely";
import type { RunStatus } from "@weft/types";
import { ddl } from "../../storage/ddl.ts";
import { num } from "../../storage/row-values.ts";
import type { RetentionPolicy } from "./retention-settings.ts";
import { pruneVersions, type VersionTables } from "../../storage/document-versions.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Runs that may go: those that ended. A queued or running run is never removed, however old. */
export const FINISHED_RUN_STATUSES = ["completed", "failed", "cancelled", "interrupted", "budget_exceeded"] as const satisfies readonly RunStatus[];

/** Scenes whose session log may go: not running or paused (those resume from it on the next start). */
export const RESTING_SCENE_STATUSES = ["idle", "stopped"] as const;

/** What one compaction removed (or, with `dryRun`, would remove). */
export interface CompactReport {
  engine: "sqlite" | "postgres";
  dryRun: boolean;
  runs: number;
  observations: number;
  /** Events of the removed runs' streams. */
  runEvents: number;
  /** Scenes whose session log was removed, and the entries it held. */
  sceneLogs: number;
  sceneLogEntries: number;
  /** Scene stream events older than the scene-log limit (each stream keeps its last event, so numbering goes on). */
  sceneEvents: number;
  /** Old versions of workflows, agent profiles and scenes (past `versionsPerDocument`, none a run ran). */
  versions: number;
  /** Stored payloads no remaining record references (only with the payload sweep, `weft compact --payloads`). */
  payloads: number;
  /** SQLite: the file's size before and after VACUUM (absent on a dry run). */
  bytesBefore?: number;
  bytesAfter?: number;
}

/** The limits as instants and counts, `now` fixed once so every statement agrees. */
export interface CompactionCutoffs {
  /** Finished runs created before this go; undefined: no age limit. */
  runsBefore?: number;
  runsPerWorkflow?: number;
  /** Resting scenes saved before this lose their log, scene events before it go. */
  scenesBefore?: number;
  versionsPerDocument?: number;
}

export function cutoffsOf(policy: RetentionPolicy, now: number): CompactionCutoffs {
  return {
    ...(policy.runsMaxAgeDays !== undefined ? { runsBefore: Math.floor(now - policy.runsMaxAgeDays * DAY_MS) } : {}),
    ...(policy.runsPerWorkflow !== undefined ? { runsPerWorkflow: policy.runsPerWorkflow } : {}),
    ...(policy.sceneLogMaxAgeDays !== undefined ? { scenesBefore: Math.floor(now - policy.sceneLogMaxAgeDays * DAY_MS) } : {}),
    ...(policy.versionsPerDocument !== undefined ? { versionsPerDocument: policy.versionsPerDocument } : {}),
  };
}

/** The tables compaction reads and removes from (the core's and the scenes'), and its own temporary one. */
interface CompactTables extends VersionTables {
  runs: { id: string; workflow_id: string; status: string; created_at: number; workflow_version: number | null };
  observations: { run_id: string };
  events: { stream_id: string; seq: number; data: string };
  scenes: { id: string };
  scene_states: { scene_id: string; status: string; saved_at: number };
  scene_log: { scene_id: string };
  compact_runs: { id: string };
}

/**
 * Removes what the cutoffs let go, counting it into `report`, on either engine, inside the caller's
 * transaction (`db` runs on it). Only the temporary table's options and the JSON path differ.
 */
export async function removeExpired(db: Kysely<CompactTables>, engine: "sqlite" | "postgres", cutoffs: CompactionCutoffs, report: CompactReport): Promise<void> {
  const { runsBefore, runsPerWorkflow, scenesBefore } = cutoffs;
  if (runsBefore !== undefined || runsPerWorkflow !== undefined) {
    const { withoutRowid, run } = ddl(db, engine);
    await run(`CREATE TEMPORARY TABLE IF NOT EXISTS compact_runs (id text PRIMARY KEY)${engine === "postgres" ? " ON COMMIT DROP" : withoutRowid}`);
    // Newest first per workflow, unfinished runs counted too: "keep 10" keeps the 10 latest, whatever state they are in.
    const ranked = db
      .selectFrom("runs")
      .select(["id", "status", "created_at", sql<number>`row_number() over (partition by workflow_id order by created_at desc, id desc)`.as("newest")])
      .as("ranked");
    await db
      .insertInto("compact_runs")
      .columns(["id"])
      .expression(
        db
          .selectFrom(ranked)
          .select("id")
          .where("status", "in", FINISHED_RUN_STATUSES)
          .where((eb) => eb.or([...(runsBefore !== undefined ? [eb("created_at", "<", runsBefore)] : []), ...(runsPerWorkflow !== undefined ? [eb("newest", ">", runsPerWorkflow)] : [])])),
      )
      .execute();
    const doomed = db.selectFrom("compact_runs").select("id");
    report.observations = Number((await db.deleteFrom("observations").where("run_id", "in", doomed).executeTakeFirst()).numDeletedRows);
    report.runEvents = Number((await db.deleteFrom("events").where("stream_id", "in", doomed).executeTakeFirst()).numDeletedRows);
    report.runs = Number((await db.deleteFrom("runs").where("id", "in", doomed).executeTakeFirst()).numDeletedRows);
    await db.deleteFrom("compact_runs").execute();
  }
  if (cutoffs.versionsPerDocument !== undefined) {
    // Runs left after the step above keep the versions they ran: a past run opens against exactly that graph.
    const ran = await db.selectFrom("runs").select(["workflow_id", "workflow_version"]).distinct().where("workflow_version", "is not", null).execute();
    const pinned = new Set(ran.map((r) => `${r.workflow_id}\u0000${r.workflow_version}`));
    // Kysely's types are invariant in the tables: this db has the version tables among its own.
    report.versions = await pruneVersions(db as unknown as Kysely<VersionTables>, cutoffs.versionsPerDocument, (kind, id, number) => kind === "workflows" && pinned.has(`${id}\u0000${number}`));
  }
  // The scene tables come with the scenes' migrations: a storage opened without them has no scene logs to remove.
  if (scenesBefore === undefined || !(await db.introspection.getTables()).some((t) => t.name === "scene_log")) return;
  const resting = db.selectFrom("scene_states").select("scene_id").where("status", "in", RESTING_SCENE_STATUSES).where("saved_at", "<", scenesBefore);
  const counted = await db
    .selectFrom("scene_log")
    .select((eb) => eb.fn.count("scene_id").distinct().as("n"))
    .where("scene_id", "in", resting)
    .executeTakeFirst();
  report.sceneLogs = num(counted?.n ?? 0);
  report.sceneLogEntries = Number((await db.deleteFrom("scene_log").where("scene_id", "in", resting).executeTakeFirst()).numDeletedRows);
  // Old events of every scene's stream, the last one kept: the journal numbers a stream on from its highest seq.
  const ts = engine === "sqlite" ? sql<number>`json_extract(data, '$.ts')` : sql<number>`(data::jsonb ->> 'ts')::double precision`;
  const deleted = await db
    .deleteFrom("events")
    .where("stream_id", "in", db.selectFrom("scenes").select("id").union(db.selectFrom("scene_states").select("scene_id as id")))
    .where(ts, "<", scenesBefore)
    .where("seq", "<", (eb) =>
      eb
        .selectFrom("events as e")
        .select((e) => e.fn.max("e.seq").as("m"))
        .whereRef("e.stream_id", "=", "events.stream_id"),
    )
    .executeTakeFirst();
  report.sceneEvents = Number(deleted.numDeletedRows);
}

/** A human summary, one line, for the CLI. */
export function describeReport(report: CompactReport): string {
  const verb = report.dryRun ? "would remove" : "removed";
  const parts = [
    `${report.runs} run(s) with ${report.observations} observation(s) and ${report.runEvents} event(s)`,
    `${report.sceneLogEntries} scene log entr${report.sceneLogEntries === 1 ? "y" : "ies"} of ${report.sceneLogs} scene(s)`,
    `${report.sceneEvents} scene event(s)`,
    `${report.versions} old document version(s)`,
    `${report.payloads} unreferenced payload(s)`,
  ];
  const size = report.bytesBefore !== undefined && report.bytesAfter !== undefined ? `; the database file went from ${mib(report.bytesBefore)} to ${mib(report.bytesAfter)}` : "";
  return `${report.engine}: ${verb} ${parts.join(", ")}${size}.`;
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}
