import { z } from "zod";
import { BuilderModeSchema, BuilderTargetSchema, ObjectTypeSchema, SessionScopeSchema } from "./target.ts";
import { ChangeOperationSchema, ChangeSetStatusSchema, OverlayEntrySchema } from "./change-set.ts";
import { BuilderIssueSchema, ValidationReportSchema } from "./issues.ts";

export const SESSION_STATUSES = ["active", "cancelled"] as const;
export const SessionStatusSchema = z.enum(SESSION_STATUSES);
export type SessionStatus = z.infer<typeof SessionStatusSchema>;

/** What the session was started on, captured once (seed 001 §4.2 `context_envelope_json`). */
export const ContextEnvelopeSchema = z.object({
  targetLabel: z.string(),
  /** The stored revision of the target's object when the session began (null: it did not exist). */
  targetRevision: z.union([z.number().int(), z.string()]).nullable(),
  /** Asset paths the target mentions; the model reads them on demand, they are never inlined. */
  referencedAssetPaths: z.array(z.string()),
});
export type ContextEnvelope = z.infer<typeof ContextEnvelopeSchema>;

export const SessionRecordSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  target: BuilderTargetSchema,
  mode: BuilderModeSchema,
  status: SessionStatusSchema,
  /** The LLM profile the session talks to; absent = the Builder's chosen profile, else the default one. */
  llmProfileId: z.string().optional(),
  scope: SessionScopeSchema,
  /** Rounds (0–2) in which the server asks the model to repair a change set that failed validation. */
  maxRepairRounds: z.number().int().min(0).max(2),
  contextEnvelope: ContextEnvelopeSchema,
  latestChangeSetId: z.string().optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type SessionRecord = z.infer<typeof SessionRecordSchema>;

export const ChangeSetRecordSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  /** Counts the session's staged change sets from 1 (seed 001 §4.4 `suggestion_version`). */
  version: z.number().int().positive(),
  status: ChangeSetStatusSchema,
  /** Why a change set is `rejected`: it failed validation, was discarded, or its session was cancelled. */
  statusReason: z.enum(["invalid", "discarded", "cancelled"]).optional(),
  summary: z.string(),
  /** The operations this stage added. */
  operations: z.array(ChangeOperationSchema),
  /** The whole working copy after this stage: what apply writes. */
  entries: z.array(OverlayEntrySchema),
  validation: ValidationReportSchema.optional(),
  /** After apply: each object's new stored revision (assets: SHA-256; null: deleted). */
  appliedRevisions: z.array(z.object({ type: ObjectTypeSchema, key: z.string(), revision: z.union([z.number().int(), z.string()]).nullable() })).optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type ChangeSetRecord = z.infer<typeof ChangeSetRecordSchema>;

/** A change set that can still be validated, applied or discarded: not applied, superseded, discarded or cancelled. */
export function isOpenChangeSet(cs: ChangeSetRecord): boolean {
  return cs.status === "staged" || cs.status === "validated" || (cs.status === "rejected" && cs.statusReason === "invalid");
}

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

export interface AuditEvent {
  id: number;
  sessionId: string;
  type: AuditEventType;
  data: Record<string, unknown>;
  at: number;
}

/** A warning of apply's revision comparison (seed 001 §5.2, warning-first). */
export const RevisionWarningSchema = BuilderIssueSchema.extend({
  code: z.literal("AI_REVISION_BASE_MISMATCH"),
  field: z.string(),
  provided: z.union([z.number().int(), z.string()]).nullable(),
  current: z.union([z.number().int(), z.string()]).nullable(),
  blocking: z.literal(false),
});
export type RevisionWarning = z.infer<typeof RevisionWarningSchema>;
