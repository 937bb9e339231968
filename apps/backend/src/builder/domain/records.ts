import { z } from "zod";
import { AppliedRevisionSchema, BuilderChangeSetSchema, BuilderSessionSchema, ChangeSetStatusReasonSchema, ValidationReportSchema } from "@weft/types";
import { ChangeOperationSchema, OverlayEntrySchema } from "./change-set.ts";

/** A session as stored: the API's view without `busy` (known only to the running server), absent fields left out instead of null. */
export const SessionRecordSchema = BuilderSessionSchema.omit({ busy: true, llmProfileId: true, latestChangeSetId: true }).extend({
  /** Absent: the Builder's chosen profile, else the default one. */
  llmProfileId: z.string().optional(),
  latestChangeSetId: z.string().optional(),
});
export type SessionRecord = z.infer<typeof SessionRecordSchema>;

/** A change set as stored: with its full operations and working copy, where the API shows summaries. */
export const ChangeSetRecordSchema = BuilderChangeSetSchema.pick({ id: true, sessionId: true, version: true, status: true, summary: true, createdAt: true, updatedAt: true }).extend({
  statusReason: ChangeSetStatusReasonSchema.optional(),
  /** The operations this stage added. */
  operations: z.array(ChangeOperationSchema),
  /** The whole working copy after this stage: what apply writes. */
  entries: z.array(OverlayEntrySchema),
  validation: ValidationReportSchema.optional(),
  appliedRevisions: z.array(AppliedRevisionSchema).optional(),
});
export type ChangeSetRecord = z.infer<typeof ChangeSetRecordSchema>;

/** Seed 001 §11 observability events, kept per session (apply's one is written in the apply transaction). */
export const AUDIT_EVENT_TYPES = [
  "ai.session.created",
  "ai.message.sent",
  "ai.tool.called",
  "ai.tool.forbidden",
  "ai.validation.failed",
  "ai.validation.passed",
  "ai.change.discarded",
  "ai.apply.revision_mismatch",
  "ai.apply.succeeded",
  "ai.apply.failed",
  "ai.session.cancelled",
] as const;
export const AuditEventTypeSchema = z.enum(AUDIT_EVENT_TYPES);
export type AuditEventType = z.infer<typeof AuditEventTypeSchema>;

export const AuditEventSchema = z.object({
  id: z.number().describe("pass as `after` to read on"),
  sessionId: z.string(),
  type: AuditEventTypeSchema,
  data: z.record(z.string(), z.unknown()),
  at: z.number(),
});
export type AuditEvent = z.output<typeof AuditEventSchema>;
