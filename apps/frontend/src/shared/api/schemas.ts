import { z } from "zod";
import { canonicalWorkflow, NodeErrorSchema, NodeSpecSchema, ObservationSchema, RunStatusSchema, RunTriggerSchema, ValidationIssueSchema, WorkflowSummarySchema, WorkflowSchema } from "@weft/types";

/** What checks a reply: a zod schema, or a decoder that answers as its `safeParse` does. */
export interface ReplyDecoder<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/** Times arrive as epoch milliseconds or ISO strings; the editor works with milliseconds. */
const Timestamp = z.union([z.number(), z.string()]).transform((v) => (typeof v === "number" ? v : Date.parse(v)));

/** GET /api/health: whether the server and what it depends on answer (the queue mode's Redis and workers too). */
export const HealthSchema = z.object({
  ok: z.boolean(),
  version: z.string().optional(),
  database: z.object({ engine: z.string(), reachable: z.boolean() }).optional(),
  queue: z.object({ mode: z.enum(["embedded", "queue"]), redis: z.object({ reachable: z.boolean() }).optional(), workers: z.number().optional() }).optional(),
});
export type Health = z.infer<typeof HealthSchema>;
export const NodesResponseSchema = z.object({ nodes: z.array(NodeSpecSchema) });

export type { WorkflowSummary } from "@weft/types";
export const WorkflowListSchema = z.object({ workflows: z.array(WorkflowSummarySchema) });
/** `builtIn`: the system runs it (every agent's default deliberation); the server refuses changes, it is duplicated to be changed. */
export const WorkflowResponseSchema = z.object({ workflow: WorkflowSchema, updatedAt: Timestamp.optional(), builtIn: z.boolean().optional() });
export type WorkflowResponse = z.infer<typeof WorkflowResponseSchema>;
const WorkflowMetaSchema = WorkflowResponseSchema.omit({ workflow: true });
/**
 * The reply with a workflow, its document checked by hand when it comes as stored (`canonicalWorkflow`: a 1,000-node
 * workflow's zod walk took 23-61 ms of its opening); anything else by the schema, with its precise error.
 */
export const WorkflowResponseDecoder: ReplyDecoder<WorkflowResponse> = {
  safeParse(value) {
    const { workflow, ...rest } = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
    const doc = canonicalWorkflow(workflow);
    const meta = doc && WorkflowMetaSchema.safeParse(rest);
    return doc && meta?.success ? { success: true, data: { workflow: doc, ...meta.data } } : WorkflowResponseSchema.safeParse(value);
  },
};

/** The workflows that call a skill (GET /api/workflows/:id/callers). */
export const CallersSchema = z.object({ workflows: z.array(z.object({ id: z.string(), name: z.string() })) });
export const ValidateResponseSchema = z.object({ ok: z.boolean(), issues: z.array(ValidationIssueSchema) });
export const OkSchema = z.object({ ok: z.literal(true) });

export const StartRunSchema = z.object({ runId: z.string(), status: z.string(), queuePosition: z.number().nullable().optional() });
export type StartedRun = z.infer<typeof StartRunSchema>;

export const RunRecordSchema = z.object({
  id: z.string(),
  workflowId: z.string(),
  /** The revision of the workflow the run was started from (a draft run may differ from it). */
  workflowRevision: z.number().optional(),
  /** The saved version of the workflow it ran (absent: a draft no save has, or a run from before versions). */
  workflowVersion: z.number().optional(),
  status: RunStatusSchema,
  inputs: z.record(z.string(), z.unknown()).default({}),
  outputs: z.record(z.string(), z.unknown()).default({}),
  error: NodeErrorSchema.nullable()
    .optional()
    .transform((e) => e ?? undefined),
  /** What started it from outside (a webhook); absent when a person or the API did. */
  trigger: RunTriggerSchema.optional(),
  createdAt: Timestamp,
  startedAt: Timestamp.nullable()
    .optional()
    .transform((v) => v ?? undefined),
  finishedAt: Timestamp.nullable()
    .optional()
    .transform((v) => v ?? undefined),
  durationMs: z
    .number()
    .nullable()
    .optional()
    .transform((v) => v ?? undefined),
  queuePosition: z
    .number()
    .nullable()
    .optional()
    .transform((v) => v ?? undefined),
  /** A fork's parent run and the node it was forked at (`POST /api/runs/:id/fork`). */
  forkOf: z.object({ runId: z.string(), nodeId: z.string() }).optional(),
  forkChanges: z.record(z.string(), z.unknown()).optional(),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

/** `workflow` (the graph exactly as the run ran it) is read when the server sends it. */
export const RunResponseSchema = z.object({ run: RunRecordSchema, observations: z.array(ObservationSchema), workflow: WorkflowSchema.optional() });
export const RunListSchema = z.object({ runs: z.array(RunRecordSchema) });
/** Events are checked one by one by the caller (an event kind newer than this editor is skipped, not fatal). */
export const RunEventsSchema = z.object({ events: z.array(z.unknown()), hasMore: z.boolean().default(false) });
