import { z } from "zod";
import { LlmUsageSchema } from "@weft/types";

/** What a usage report can be grouped by (`groupBy=day,user,profile,…`). */
export const USAGE_GROUPS = ["day", "user", "profile", "model", "workflow", "agent", "run", "conversation", "scene"] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

/** One LLM call as stored: who made it, with which profile and model, its tokens and cost (US dollars; absent = unknown price). */
export interface UsageRecord {
  at: number;
  runId?: string;
  nodeId?: string;
  invocationId?: string;
  workflowId?: string;
  agentId?: string;
  conversationId?: string;
  sceneId?: string;
  userId?: string;
  profileId: string;
  model: string;
  usage: z.infer<typeof LlmUsageSchema>;
  costUsd?: number;
}

/** Which rows a report sums: a time range ([from, to), epoch ms) and exact matches, grouped by `groupBy`. */
export interface UsageQuery {
  from?: number;
  to?: number;
  userId?: string;
  runId?: string;
  conversationId?: string;
  sceneId?: string;
  workflowId?: string;
  agentId?: string;
  profileId?: string;
  groupBy?: UsageGroup[];
}

const groupValue = z.string().nullable().optional();

/** One line of a usage report: the group's keys (those asked for) and its sums. */
export const UsageRowSchema = z.object({
  day: groupValue,
  user: groupValue,
  profile: groupValue,
  model: groupValue,
  workflow: groupValue,
  agent: groupValue,
  run: groupValue,
  conversation: groupValue,
  scene: groupValue,
  calls: z.number().int(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  cachedTokens: z.number().int(),
  reasoningTokens: z.number().int(),
  totalTokens: z.number().int(),
  /** US dollars of the calls with known prices; null when none had one. */
  costUsd: z.number().nullable(),
  /** Calls whose profile had no prices: not in `costUsd`. */
  unpricedCalls: z.number().int(),
  /** Calls whose provider reported no usage: their tokens are estimates. */
  estimatedCalls: z.number().int(),
});
export type UsageRow = z.infer<typeof UsageRowSchema>;

const epochMs = (name: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === "") return undefined;
      const parsed = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
      if (Number.isNaN(parsed)) {
        ctx.addIssue({ code: "custom", message: `${name} must be a date (2026-11-01 or 2026-11-01T12:00:00Z) or epoch milliseconds; got "${value}"` });
        return z.NEVER;
      }
      return parsed;
    });

/** `GET /api/usage`'s query. */
export const UsageQuerySchema = z
  .object({
    from: epochMs("from").describe("start (inclusive): a date, a date-time, or epoch milliseconds"),
    to: epochMs("to").describe("end (exclusive): a date, a date-time, or epoch milliseconds"),
    groupBy: z
      .string()
      .optional()
      .transform((value, ctx) => {
        const keys = (value ?? "")
          .split(",")
          .map((k) => k.trim())
          .filter((k) => k !== "");
        const unknown = keys.filter((k) => !(USAGE_GROUPS as readonly string[]).includes(k));
        if (unknown.length > 0) {
          ctx.addIssue({ code: "custom", message: `groupBy takes ${USAGE_GROUPS.join(", ")} (comma-separated); "${unknown.join(", ")}" is none of them` });
          return z.NEVER;
        }
        return [...new Set(keys)] as UsageGroup[];
      })
      .describe(`comma-separated: ${USAGE_GROUPS.join(", ")}`),
    userId: z.string().optional(),
    runId: z.string().optional(),
    conversationId: z.string().optional(),
    sceneId: z.string().optional(),
    workflowId: z.string().optional(),
    agentId: z.string().optional(),
    profileId: z.string().optional(),
    format: z.enum(["json", "csv"]).optional().describe("csv for a spreadsheet; json by default"),
  })
  .strict();

export const UsageReportSchema = z.object({
  from: z.number().nullable(),
  to: z.number().nullable(),
  groupBy: z.array(z.enum(USAGE_GROUPS)),
  rows: z.array(UsageRowSchema),
  total: UsageRowSchema,
});
export type UsageReport = z.infer<typeof UsageReportSchema>;
