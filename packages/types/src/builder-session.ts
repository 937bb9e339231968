import { z } from "zod";
import { ValidationReportSchema } from "./builder-issues.ts";
import { BuilderModeSchema, BuilderObjectTypeSchema, BuilderTargetSchema, ObjectRevisionSchema, SessionScopeSchema } from "./builder-target.ts";

/** Builder AI sessions and change sets as the HTTP API answers them (docs/api.md "Builder AI"). */

export const SESSION_STATUSES = ["active", "cancelled"] as const;
export const SessionStatusSchema = z.enum(SESSION_STATUSES);
export type SessionStatus = z.infer<typeof SessionStatusSchema>;

/** What the session was started on, captured once (seed 001 §4.2 `context_envelope_json`). */
export const ContextEnvelopeSchema = z.object({
  targetLabel: z.string(),
  /** The stored revision of the target's object when the session began (null: it did not exist). */
  targetRevision: ObjectRevisionSchema,
  /** Asset paths the target mentions; the model reads them on demand, they are never inlined. */
  referencedAssetPaths: z.array(z.string()),
});
export type ContextEnvelope = z.infer<typeof ContextEnvelopeSchema>;

export const CHANGE_SET_STATUSES = ["staged", "validated", "rejected", "superseded", "applied"] as const;
export const ChangeSetStatusSchema = z.enum(CHANGE_SET_STATUSES);
export type ChangeSetStatus = z.infer<typeof ChangeSetStatusSchema>;

/** Why a change set is `rejected`: it failed validation, was discarded, or its session was cancelled. */
export const ChangeSetStatusReasonSchema = z.enum(["invalid", "discarded", "cancelled"]);
export type ChangeSetStatusReason = z.infer<typeof ChangeSetStatusReasonSchema>;

/** After apply: an object's new stored revision (assets: SHA-256; null: deleted). */
export const AppliedRevisionSchema = z.object({ type: BuilderObjectTypeSchema, key: z.string(), revision: ObjectRevisionSchema });
export type AppliedRevision = z.infer<typeof AppliedRevisionSchema>;

/** A change set that can still be validated, applied or discarded: not applied, superseded, discarded or cancelled. */
export function isOpenChangeSet(cs: { status: ChangeSetStatus; statusReason?: ChangeSetStatusReason | null }): boolean {
  return cs.status === "staged" || cs.status === "validated" || (cs.status === "rejected" && cs.statusReason === "invalid");
}

export const BuilderSessionSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  target: BuilderTargetSchema,
  mode: BuilderModeSchema,
  status: SessionStatusSchema,
  /** The LLM profile the session talks to; null = the Builder's chosen profile, else the default one. */
  llmProfileId: z.string().nullable(),
  scope: SessionScopeSchema,
  /** Rounds (0–2) in which the server asks the model to repair a change set that failed validation. */
  maxRepairRounds: z.number().int().min(0).max(2),
  contextEnvelope: ContextEnvelopeSchema,
  latestChangeSetId: z.string().nullable(),
  /** A turn of the model is running. */
  busy: z.boolean(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type BuilderSession = z.infer<typeof BuilderSessionSchema>;

/** A change set without its full documents (those are in the preview). */
export const BuilderChangeSetSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  /** Counts the session's staged change sets from 1 (seed 001 §4.4 `suggestion_version`). */
  version: z.number().int().positive(),
  status: ChangeSetStatusSchema,
  statusReason: ChangeSetStatusReasonSchema.nullable(),
  summary: z.string(),
  /** Each operation this stage added and what it touches (`workflowId/nodeId` for nodes and edges). */
  operations: z.array(z.object({ op: z.string(), target: z.string() })),
  /** The working copy's objects (`deleted`: the change removes it). */
  objects: z.array(z.object({ type: BuilderObjectTypeSchema, key: z.string(), deleted: z.boolean() })),
  validation: ValidationReportSchema.nullable(),
  appliedRevisions: z.array(AppliedRevisionSchema).nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type BuilderChangeSet = z.infer<typeof BuilderChangeSetSchema>;

/** A tool call of the model, summarised; `ok` null: no readable result. */
export const BuilderToolCallSchema = z.object({ callId: z.string(), name: z.string(), ok: z.boolean().nullable(), code: z.string().optional(), changeSetId: z.string().optional() });
export type BuilderToolCall = z.infer<typeof BuilderToolCallSchema>;

/** The conversation pane's entries: summaries only, never the documents tools read or staged (seed 001 §10.2). */
export const PaneMessageSchema = z.discriminatedUnion("kind", [
  z.object({ id: z.string(), at: z.string(), kind: z.literal("user"), text: z.string() }),
  z.object({ id: z.string(), at: z.string(), kind: z.literal("repair_request"), text: z.string() }),
  z.object({ id: z.string(), at: z.string(), kind: z.literal("assistant"), text: z.string(), toolCalls: z.array(BuilderToolCallSchema) }),
  z.object({ id: z.string(), at: z.string(), kind: z.literal("error"), code: z.string(), message: z.string(), hint: z.string(), partialText: z.string() }),
]);
export type PaneMessage = z.infer<typeof PaneMessageSchema>;

/** One user message's turn of the model. */
export const BuilderTurnSchema = z.object({
  /** `limit`: the model kept calling tools past the per-message limit. */
  status: z.enum(["completed", "cancelled", "failed", "limit"]),
  /** The model's reply (summary-only, seed 001 §5.2). */
  assistantSummary: z.string(),
  toolCalls: z.array(BuilderToolCallSchema),
  repairRounds: z.number().int(),
  error: z.object({ code: z.string(), llmCode: z.string().optional(), message: z.string(), hint: z.string() }).optional(),
});
export type BuilderTurn = z.infer<typeof BuilderTurnSchema>;

export const BuilderSessionStateSchema = z.object({ session: BuilderSessionSchema, latestChangeSet: BuilderChangeSetSchema.nullable() });
export type BuilderSessionState = z.infer<typeof BuilderSessionStateSchema>;
export const BuilderSessionDetailSchema = BuilderSessionStateSchema.extend({ messages: z.array(PaneMessageSchema), totalMessages: z.number().int() });
export type BuilderSessionDetail = z.infer<typeof BuilderSessionDetailSchema>;
export const BuilderTurnResponseSchema = BuilderSessionStateSchema.extend({ turn: BuilderTurnSchema });
export type BuilderTurnResponse = z.infer<typeof BuilderTurnResponseSchema>;
export const BuilderSessionListSchema = z.object({ sessions: z.array(BuilderSessionSchema) });
export const BuilderChangeSetResponseSchema = z.object({ changeSet: BuilderChangeSetSchema });
export const BuilderInterruptResponseSchema = z.object({ interrupted: z.boolean() });

/** The Builder's LLM profile (`PUT /api/builder/settings` takes the same; null: the default profile). */
export const BuilderSettingsSchema = z.object({ llmProfileId: z.string().min(1).nullable() }).strict();
export type BuilderSettings = z.infer<typeof BuilderSettingsSchema>;

/** Starts the server's own request to the model to repair an invalid change (the pane shows it as such). */
export const BUILDER_REPAIR_PREFIX = "[Builder validation]";
