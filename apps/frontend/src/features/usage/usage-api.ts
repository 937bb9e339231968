import { z } from "zod";
import { ApiClient } from "../../shared/api/client.ts";

/** One line of `GET /api/usage` (docs/api.md "Usage"): the group's keys and its sums. */
export const UsageRowSchema = z.object({
  day: z.string().nullable().optional(),
  user: z.string().nullable().optional(),
  profile: z.string().nullable().optional(),
  model: z.string().nullable().optional(),
  workflow: z.string().nullable().optional(),
  agent: z.string().nullable().optional(),
  run: z.string().nullable().optional(),
  conversation: z.string().nullable().optional(),
  scene: z.string().nullable().optional(),
  calls: z.number(),
  promptTokens: z.number(),
  completionTokens: z.number(),
  cachedTokens: z.number(),
  reasoningTokens: z.number(),
  totalTokens: z.number(),
  costUsd: z.number().nullable(),
  unpricedCalls: z.number(),
  estimatedCalls: z.number(),
});
export type UsageRow = z.infer<typeof UsageRowSchema>;

const UsageReportSchema = z.object({ rows: z.array(UsageRowSchema), total: UsageRowSchema });
export type UsageReport = z.infer<typeof UsageReportSchema>;

/** What a report can be grouped by (docs/api.md "Usage"). */
export const USAGE_GROUPS = ["day", "user", "profile", "model", "workflow", "agent", "run", "conversation", "scene"] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

/**
 * What a view sums: one run, conversation or scene (each reader of it sees its totals), or a workflow's runs since `from`
 * (epoch ms; a non-owner's own runs only), or every call in [from, to) (dates; the owner's report: everyone's, anyone
 * else's: their own), grouped or not.
 */
export interface UsageFilter {
  runId?: string;
  workflowId?: string;
  from?: string;
  to?: string;
  conversationId?: string;
  sceneId?: string;
  groupBy?: UsageGroup | readonly UsageGroup[];
}

function queryOf(filter: UsageFilter): URLSearchParams {
  const { groupBy, ...rest } = filter;
  const query = new URLSearchParams(Object.entries(rest).filter((e): e is [string, string] => typeof e[1] === "string"));
  if (groupBy !== undefined && groupBy.length > 0) query.set("groupBy", typeof groupBy === "string" ? groupBy : groupBy.join(","));
  return query;
}

/** The report as a CSV file, for a link: the session cookie signs the download in. */
export function usageCsvHref(filter: UsageFilter): string {
  const query = queryOf(filter);
  query.set("format", "csv");
  return `/api/usage?${query}`;
}

export class UsageApi extends ApiClient {
  report(filter: UsageFilter) {
    return this.request("GET", `/api/usage?${queryOf(filter)}`, UsageReportSchema);
  }
}

export const usageApi = new UsageApi();
