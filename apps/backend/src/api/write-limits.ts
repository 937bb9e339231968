import type { LimitIssue } from "@weft/types";
import { ApiError } from "./errors.ts";

/**
 * Refuses a write whose ids, names or descriptions are over their limits (`@weft/types` write-limits.ts): 400
 * VALIDATION_FAILED naming the first field, its length and the limit, every issue in `details.issues`.
 * `where` is how the body names the document, e.g. "body.workflow".
 */
export function refuseOverLimits(issues: readonly LimitIssue[], where: string): void {
  if (issues.length === 0) return;
  const first = issues[0];
  const at = [where, ...first.path].join(".");
  throw new ApiError("VALIDATION_FAILED", `${at}: ${first.message}.${issues.length > 1 ? ` (${issues.length - 1} more in details.issues)` : ""}`, {
    issues: issues.map((i) => ({ path: i.path, message: i.message, code: i.code, length: i.length, limit: i.limit })),
  });
}
