import type { SqlHandle } from "../../storage/sql-handle.ts";
import { cutoffsOf, type CompactReport } from "./compaction.ts";
import { compactPostgres } from "./postgres-compaction.ts";
import type { RetentionPolicy } from "./retention-settings.ts";
import { compactSqlite } from "./sqlite-compaction.ts";

export { describeReport, type CompactReport } from "./compaction.ts";

/**
 * Applies the retention policy: finished runs past the limits with their observations and events,
 * session logs of scenes at rest past the limit, and old scene stream events; documents stay. With
 * `payloads`, also the stored payloads nothing references any more (only while no Weft process runs).
 */
export async function compact(handle: SqlHandle, policy: RetentionPolicy, options: { now?: number; dryRun?: boolean; payloads?: boolean } = {}): Promise<CompactReport> {
  const cutoffs = cutoffsOf(policy, options.now ?? Date.now());
  const dryRun = options.dryRun ?? false;
  // Only when asked: safe only while no Weft process runs (see payload-sweep.ts).
  const payloads = options.payloads ?? false;
  switch (handle.engine) {
    case "sqlite":
      return compactSqlite(handle.db, cutoffs, dryRun, payloads);
    case "postgres":
      return compactPostgres(handle.sql, cutoffs, dryRun, payloads);
  }
}
