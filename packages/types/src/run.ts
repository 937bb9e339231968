import { z } from "zod";

export const NodeErrorSchema = z.object({
  /** Machine-readable: TIMEOUT, CANCELLED, INVALID_INPUT, NODE_ERROR, SKILL_RECURSION, ... */
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type NodeError = z.infer<typeof NodeErrorSchema>;

export const OBSERVATION_STATUSES = ["completed", "failed", "skipped", "cancelled"] as const;
export const ObservationStatusSchema = z.enum(OBSERVATION_STATUSES);
export type ObservationStatus = z.infer<typeof ObservationStatusSchema>;

/** What one node invocation did: persisted so any past run can be inspected. */
export const ObservationSchema = z.object({
  runId: z.string(),
  nodeId: z.string(),
  invocationId: z.string(),
  nodeType: z.string(),
  status: ObservationStatusSchema,
  inputs: z.record(z.string(), z.unknown()),
  outputs: z.record(z.string(), z.unknown()),
  chunks: z.array(z.unknown()),
  error: NodeErrorSchema.optional(),
  skipReason: z.string().optional(),
  startedAt: z.number(),
  durationMs: z.number(),
  cached: z.boolean(),
  attempts: z.number().int(),
});
export type Observation = z.infer<typeof ObservationSchema>;

export const RUN_STATUSES = ["queued", "running", "completed", "failed", "cancelled", "interrupted"] as const;
export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const RunResultSchema = z.object({
  runId: z.string(),
  workflowId: z.string(),
  status: z.enum(["completed", "failed", "cancelled"]),
  /** Interface outputs (for a single-node run: all the node's outputs). */
  outputs: z.record(z.string(), z.unknown()),
  observations: z.array(ObservationSchema),
  error: NodeErrorSchema.optional(),
  startedAt: z.number(),
  durationMs: z.number(),
});
export type RunResult = z.infer<typeof RunResultSchema>;
