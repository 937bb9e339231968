import type { UsageRow } from "./usage-api.ts";

/** The sum of report rows, as the server sums them: the cost of priced calls only (null when none was priced). */
export function sumUsageRows(rows: readonly UsageRow[]): UsageRow | undefined {
  if (rows.length === 0) return undefined;
  const sum: UsageRow = { calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, reasoningTokens: 0, totalTokens: 0, costUsd: null, unpricedCalls: 0, estimatedCalls: 0 };
  for (const r of rows) {
    sum.calls += r.calls;
    sum.promptTokens += r.promptTokens;
    sum.completionTokens += r.completionTokens;
    sum.cachedTokens += r.cachedTokens;
    sum.reasoningTokens += r.reasoningTokens;
    sum.totalTokens += r.totalTokens;
    sum.unpricedCalls += r.unpricedCalls;
    sum.estimatedCalls += r.estimatedCalls;
    if (r.costUsd !== null) sum.costUsd = (sum.costUsd ?? 0) + r.costUsd;
  }
  return sum;
}
