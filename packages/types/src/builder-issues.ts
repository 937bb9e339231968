import { z } from "zod";
import { BuilderObjectTypeSchema, ObjectRevisionSchema } from "./builder-target.ts";

/** The stages of the Builder's validation pipeline (seed 001 §8), in the order they run; `revision` runs at apply only. */
export const VALIDATION_STAGES = ["shape", "graph", "references", "boundary", "path", "revision"] as const;
export const ValidationStageSchema = z.enum(VALIDATION_STAGES);
export type ValidationStage = z.infer<typeof ValidationStageSchema>;

/**
 * One problem with a Builder change: what, where, and how to fix it. `code` is a workflow validation code
 * (`CYCLE`, `UNKNOWN_NODE_TYPE`…) for graph problems, otherwise an `AI_*` code.
 */
export const BuilderIssueSchema = z.object({
  code: z.string(),
  stage: ValidationStageSchema,
  message: z.string(),
  hint: z.string(),
  objectType: BuilderObjectTypeSchema.optional(),
  objectKey: z.string().optional(),
  /** Where inside the change set or object, e.g. `operations.0.workflow.nodes.2.type`. */
  path: z.string().optional(),
  nodeId: z.string().optional(),
  edgeId: z.string().optional(),
  nodeIds: z.array(z.string()).optional(),
});
export type BuilderIssue = z.infer<typeof BuilderIssueSchema>;

export const ValidationReportSchema = z.object({
  valid: z.boolean(),
  errors: z.array(BuilderIssueSchema),
  warnings: z.array(BuilderIssueSchema),
  stages: z.array(z.object({ stage: ValidationStageSchema, errors: z.number().int(), warnings: z.number().int() })),
  checkedAt: z.number(),
  /** Seed 001 §6.2: whether the change may be applied (by the user). */
  meta: z.object({ allowWrite: z.boolean() }),
});
export type ValidationReport = z.infer<typeof ValidationReportSchema>;

/** A warning of apply's revision comparison (seed 001 §5.2, warning-first): the stored object moved since the change was staged. */
export const RevisionWarningSchema = BuilderIssueSchema.extend({
  code: z.literal("AI_REVISION_BASE_MISMATCH"),
  field: z.string(),
  provided: ObjectRevisionSchema,
  current: ObjectRevisionSchema,
  blocking: z.literal(false),
});
export type RevisionWarning = z.infer<typeof RevisionWarningSchema>;
