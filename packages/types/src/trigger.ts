import { z } from "zod";

/** The node type of a webhook trigger: its outputs are the request that started the run. */
export const WEBHOOK_TRIGGER_TYPE = "trigger:webhook";

/** The node type of a schedule trigger: its outputs are the tick it fires for and when it actually fired. */
export const SCHEDULE_TRIGGER_TYPE = "trigger:schedule";

/** What may start a workflow from outside. */
export const TRIGGER_KINDS = ["webhook", "schedule"] as const;
export const TriggerKindSchema = z.enum(TRIGGER_KINDS);
export type TriggerKind = z.infer<typeof TriggerKindSchema>;

/** How a webhook request proves it comes from whoever holds the hook's secret. */
export const WEBHOOK_AUTH_MODES = ["token", "hmac"] as const;
/** What the caller gets back: the run's id at once, the workflow's outputs (or the id after a timeout), or the run's events as SSE. */
export const WEBHOOK_RESPONSE_MODES = ["accepted", "wait", "stream"] as const;
export const WEBHOOK_METHODS = ["POST", "GET", "PUT"] as const;

/** A hook's path segment: letters, digits, `-`, `_`, `.` and `/` between segments (no `..`). */
export const WebhookPathSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/, "a path is segments of letters, digits, `.`, `_` and `-` separated by `/`, e.g. `github/push`");

/** A `trigger:webhook` node's config (defaults filled). */
export const WebhookConfigSchema = z.object({
  path: WebhookPathSchema,
  method: z.enum(WEBHOOK_METHODS).default("POST"),
  auth: z.enum(WEBHOOK_AUTH_MODES).default("hmac"),
  response: z.enum(WEBHOOK_RESPONSE_MODES).default("accepted"),
  /** Wait mode: after this long the caller gets 202 with the run's id. */
  waitTimeoutMs: z.number().int().min(100).max(120_000).default(30_000),
  /** The largest body accepted (413 above it); never more than the server's own limit. */
  maxBodyBytes: z
    .number()
    .int()
    .min(1)
    .default(1024 * 1024),
  /** Requests per minute this hook accepts (429 with Retry-After above it). */
  ratePerMinute: z.number().int().min(1).max(100_000).default(60),
});
export type WebhookConfig = z.infer<typeof WebhookConfigSchema>;

/**
 * After downtime (or while the workflow's ticks were missed): `last` fires the latest missed tick once, `none` fires
 * none of them (only a tick whose time has just come), `all` fires each missed tick, the latest `maxCatchUp` of them.
 */
export const SCHEDULE_CATCH_UP_POLICIES = ["last", "none", "all"] as const;
export type ScheduleCatchUp = (typeof SCHEDULE_CATCH_UP_POLICIES)[number];

/** A `trigger:schedule` node's config (defaults filled); the cron expression and time zone are checked by `@weft/nodes`' `checkSchedule`. */
export const ScheduleConfigSchema = z.object({
  /** Five fields (minute hour day month weekday), six with seconds first, or a nickname such as `@hourly`. */
  cron: z.string().trim().min(1, "a cron expression is required, e.g. `0 9 * * 1-5` (09:00 on weekdays)").max(200),
  /** An IANA time zone the expression is read in, e.g. `Europe/Berlin`. */
  timezone: z.string().trim().min(1).max(100).default("UTC"),
  catchUp: z.enum(SCHEDULE_CATCH_UP_POLICIES).default("last"),
  /** `all`: at most this many missed ticks are fired (the latest ones). */
  maxCatchUp: z.number().int().min(1).max(100).default(10),
});
export type ScheduleConfig = z.infer<typeof ScheduleConfigSchema>;

/** What may start a run without a person: a trigger node's kind, or `error` (a workflow's error workflow, after a failed run). */
export const RunTriggerKindSchema = z.union([TriggerKindSchema, z.literal("error")]);

/** What started a run, recorded on it (`RunRecord.trigger`). */
export const RunTriggerSchema = z.object({
  kind: RunTriggerKindSchema,
  /** The trigger node's id in the workflow (absent for kind `error`). */
  nodeId: z.string().optional(),
  /** For kind `error`: the failed run whose workflow names this one as its error workflow. */
  runId: z.string().optional(),
  /** For a webhook: its path under `/hooks/<workflowId>/`. */
  path: z.string().optional(),
  /** For a schedule: the tick this run is for (epoch ms); `at` is when it actually fired. */
  scheduledFor: z.number().optional(),
  at: z.number(),
});
export type RunTrigger = z.infer<typeof RunTriggerSchema>;

/** Headers a webhook run never sees (they carry credentials, or the hook's own proof). */
export const WEBHOOK_HIDDEN_HEADERS = ["authorization", "cookie", "proxy-authorization", "x-weft-token", "x-weft-signature", "x-weft-timestamp"] as const;
