import type { SqlHandle } from "../../storage/sql-handle.ts";
import { cutoffsOf, type CompactReport } from "./compaction.ts";
import { compactPostgres } from "./postgres-compaction.ts";
import type { RetentionPolicy } from "./retention-settings.ts";
import { compactSqlite } from "./sqlite-compaction.ts";

export { describeReport, type CompactReport } from "./compaction.ts";

/**
 * Applies the retention policy: finished runs past the limits with their observations and events,
 * session logs of scenes at rest past the limit, and old scene stream events; documents stay.
 */
export async function compact(handle: SqlHandle, policy: RetentionPolicy, options: { now?: number; dryRun?: boolean } = {}): Promise<CompactReport> {
  const cutoffs = cutoffsOf(policy, options.now ?? Date.now());
  const dryRun = options.dryRun ?? false;
  switch (handle.engine) {
    case "sqlite":
      return compactSqlite(handle.db, cutoffs, dryRun);
    case "postgres":
      return compactPostgres(handle.sql, cutoffs, dryRun);
  }
}
