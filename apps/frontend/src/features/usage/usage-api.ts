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

/**
 * What a view sums: one run, conversation or scene (each reader of it sees its totals), or a workflow's runs since `from`
 * (epoch ms; a non-owner's own runs only), grouped or not.
 */
export interface UsageFilter {
  runId?: string;
  workflowId?: string;
  from?: string;
  conversationId?: string;
  sceneId?: string;
  groupBy?: "run" | "agent" | "conversation";
}

export class UsageApi extends ApiClient {
  report(filter: UsageFilter) {
    const query = new URLSearchParams(Object.entries(filter).filter((e): e is [string, string] => typeof e[1] === "string"));
    return this.request("GET", `/api/usage?${query}`, UsageReportSchema);
  }
}

export const usageApi = new UsageApi();
