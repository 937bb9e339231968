import { z } from "zod";
import { RunWaitSchema } from "./approval.ts";

/**
 * The run-time error codes the engine and the built-in nodes produce (a NodeError's `code`). The list
 * is closed for the engine; a node may still report a code of its own (e.g. a tool's).
 */
export const ENGINE_ERROR_CODES = [
  /** The run was cancelled, or stopped by a node whose policy is "stop", before this node finished. */
  "CANCELLED",
  /** The node did not finish within its policy.timeoutMs. */
  "TIMEOUT",
  /** An input value (or a run's interface input) is missing or of the wrong shape. */
  "INVALID_INPUT",
  /** The node's config is not usable. */
  "INVALID_CONFIG",
  /** The node returned something other than an object of outputs by port id. */
  "INVALID_OUTPUT",
  /** The node threw something other than a NodeFailure. */
  "NODE_ERROR",
  /** The workflow (or a skill it calls) does not pass validation. */
  "INVALID_WORKFLOW",
  /** `rerunFrom` names no node of the workflow. */
  "INVALID_RERUN_FROM",
  /** A skill's workflow is not saved (or there is no workflow source). */
  "SKILL_NOT_FOUND",
  /** A skill's workflow could not be loaded. */
  "SKILL_LOAD_FAILED",
  /** A skill would call itself, directly or through others. */
  "SKILL_RECURSION",
  /** A skill's run failed; details name the node inside it. */
  "SKILL_FAILED",
  /** core:map: the skill failed on one item. */
  "MAP_ITEM_FAILED",
  /** The server stopped while the run was executing. */
  "INTERRUPTED",
  /** The node's outputs (or its streamed chunks) are larger than the engine's cap per node (`maxOutputBytes`). */
  "OUTPUT_TOO_LARGE",
] as const;
export type EngineErrorCode = (typeof ENGINE_ERROR_CODES)[number];

/** One of ENGINE_ERROR_CODES, or a node's own code (`string & {}` keeps the engine's codes suggested). */
const ErrorCodeSchema: z.ZodType<EngineErrorCode | (string & {})> = z.string();

export const NodeErrorSchema = z.object({
  /** Machine-readable: one of ENGINE_ERROR_CODES, or a node's own. */
  code: ErrorCodeSchema,
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type NodeError = z.infer<typeof NodeErrorSchema>;

/** A NodeError with one of the engine's own codes. */
export function engineError(code: EngineErrorCode, message: string, details?: Record<string, unknown>): NodeError {
  return details === undefined ? { code, message } : { code, message, details };
}

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
  /**
   * A failed node whose policy sends its error on (`onError: "route"`): status stays `failed`, `outputs` holds only
   * `$error` (`{ code, message, nodeId, nodeTitle, attempt }`), and the run does not fail because of it.
   */
  handled: z.literal(true).optional(),
  startedAt: z.number(),
  durationMs: z.number(),
  cached: z.boolean(),
  attempts: z.number().int(),
});
export type Observation = z.infer<typeof ObservationSchema>;

/**
 * `budget_exceeded`: an LLM call was refused because it would have passed a budget (the run's error says which and how to raise it).
 * `waiting`: a `core:approval` node waits for a decision; nothing of the run is held in memory until it resumes.
 */
export const RUN_STATUSES = ["queued", "running", "completed", "failed", "cancelled", "interrupted", "budget_exceeded", "waiting"] as const;
export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const RunResultSchema = z.object({
  runId: z.string(),
  workflowId: z.string(),
  status: z.enum(["completed", "failed", "cancelled", "waiting"]),
  /** `waiting`: the nodes that asked to pause the run (`suspendRun`), with their requests. */
  waiting: z.array(RunWaitSchema).optional(),
  /** Interface outputs (for a single-node run: all the node's outputs). */
  outputs: z.record(z.string(), z.unknown()),
  observations: z.array(ObservationSchema),
  error: NodeErrorSchema.optional(),
  startedAt: z.number(),
  durationMs: z.number(),
});
export type RunResult = z.infer<typeof RunResultSchema>;
