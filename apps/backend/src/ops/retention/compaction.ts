import type { RunStatus } from "@weft/types";
import type { RetentionPolicy } from "./retention-settings.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Runs that may go: those that ended. A queued or running run is never removed, however old. */
export const FINISHED_RUN_STATUSES = ["completed", "failed", "cancelled", "interrupted"] as const satisfies readonly RunStatus[];

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
}

export function cutoffsOf(policy: RetentionPolicy, now: number): CompactionCutoffs {
  return {
    ...(policy.runsMaxAgeDays !== undefined ? { runsBefore: Math.floor(now - policy.runsMaxAgeDays * DAY_MS) } : {}),
    ...(policy.runsPerWorkflow !== undefined ? { runsPerWorkflow: policy.runsPerWorkflow } : {}),
    ...(policy.sceneLogMaxAgeDays !== undefined ? { scenesBefore: Math.floor(now - policy.sceneLogMaxAgeDays * DAY_MS) } : {}),
  };
}

/** A human summary, one line, for the CLI. */
export function describeReport(report: CompactReport): string {
  const verb = report.dryRun ? "would remove" : "removed";
  const parts = [
    `${report.runs} run(s) with ${report.observations} observation(s) and ${report.runEvents} event(s)`,
    `${report.sceneLogEntries} scene log entr${report.sceneLogEntries === 1 ? "y" : "ies"} of ${report.sceneLogs} scene(s)`,
    `${report.sceneEvents} scene event(s)`,
    `${report.payloads} unreferenced payload(s)`,
  ];
  const size = report.bytesBefore !== undefined && report.bytesAfter !== undefined ? `; the database file went from ${mib(report.bytesBefore)} to ${mib(report.bytesAfter)}` : "";
  return `${report.engine}: ${verb} ${parts.join(", ")}${size}.`;
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}
