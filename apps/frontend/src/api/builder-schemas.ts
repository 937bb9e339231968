import { z } from "zod";
import { WorkflowEdgeSchema, WorkflowNodeSchema } from "@weft/types";

/** The Builder AI's answers (docs/api.md "Builder AI"), checked as they arrive. */

export const BuilderModeSchema = z.enum(["create", "optimize"]);
export type BuilderMode = z.infer<typeof BuilderModeSchema>;

/** What a session works on: a workflow, one node of it, an agent profile, a scene or a text asset. */
export const BuilderTargetSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("workflow"), workflowId: z.string() }),
  z.object({ type: z.literal("node"), workflowId: z.string(), nodeId: z.string() }),
  z.object({ type: z.literal("agent"), agentId: z.string() }),
  z.object({ type: z.literal("scene"), sceneId: z.string() }),
  z.object({ type: z.literal("asset"), path: z.string() }),
]);
export type BuilderTarget = z.infer<typeof BuilderTargetSchema>;
export type BuilderTargetType = BuilderTarget["type"];

export const ObjectTypeSchema = z.enum(["workflow", "agent", "scene", "asset"]);
export type BuilderObjectType = z.infer<typeof ObjectTypeSchema>;
export const ObjectLocatorSchema = z.object({ type: ObjectTypeSchema, id: z.string() });
export type ObjectLocator = z.infer<typeof ObjectLocatorSchema>;

const Revision = z.union([z.number(), z.string()]).nullable();

export const BuilderIssueSchema = z.object({
  code: z.string(),
  stage: z.string(),
  message: z.string(),
  hint: z.string(),
  objectType: ObjectTypeSchema.optional(),
  objectKey: z.string().optional(),
  path: z.string().optional(),
  nodeId: z.string().optional(),
  edgeId: z.string().optional(),
  nodeIds: z.array(z.string()).optional(),
});
export type BuilderIssue = z.infer<typeof BuilderIssueSchema>;

export const ValidationSchema = z.object({
  valid: z.boolean(),
  errors: z.array(BuilderIssueSchema),
  warnings: z.array(BuilderIssueSchema),
  stages: z.array(z.object({ stage: z.string(), errors: z.number(), warnings: z.number() })),
  checkedAt: z.number(),
  meta: z.object({ allowWrite: z.boolean() }),
});
export type Validation = z.infer<typeof ValidationSchema>;

export const SessionSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  target: BuilderTargetSchema,
  mode: BuilderModeSchema,
  status: z.enum(["active", "cancelled"]),
  llmProfileId: z.string().nullable(),
  scope: z.object({ extra: z.array(ObjectLocatorSchema) }),
  maxRepairRounds: z.number(),
  contextEnvelope: z.object({ targetLabel: z.string(), targetRevision: Revision, referencedAssetPaths: z.array(z.string()) }),
  latestChangeSetId: z.string().nullable(),
  busy: z.boolean(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type Session = z.infer<typeof SessionSchema>;

export const ChangeSetStatusSchema = z.enum(["staged", "validated", "rejected", "superseded", "applied"]);
export type ChangeSetStatus = z.infer<typeof ChangeSetStatusSchema>;

export const ChangeSetSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  version: z.number(),
  status: ChangeSetStatusSchema,
  statusReason: z.enum(["invalid", "discarded", "cancelled"]).nullable(),
  summary: z.string(),
  operations: z.array(z.object({ op: z.string(), target: z.string() })),
  objects: z.array(z.object({ type: ObjectTypeSchema, key: z.string(), deleted: z.boolean() })),
  validation: ValidationSchema.nullable(),
  appliedRevisions: z.array(z.object({ type: ObjectTypeSchema, key: z.string(), revision: Revision })).nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type ChangeSet = z.infer<typeof ChangeSetSchema>;

/** A change set that can still be validated, applied or discarded (as the server decides it). */
export function isOpenChangeSet(cs: Pick<ChangeSet, "status" | "statusReason">): boolean {
  return cs.status === "staged" || cs.status === "validated" || (cs.status === "rejected" && cs.statusReason === "invalid");
}

export const ToolCallSchema = z.object({ callId: z.string(), name: z.string(), ok: z.boolean().nullable(), code: z.string().optional(), changeSetId: z.string().optional() });
export type ToolCallSummary = z.infer<typeof ToolCallSchema>;

/** The conversation pane's entries: summaries only, never the documents tools read or staged. */
export const PaneMessageSchema = z.discriminatedUnion("kind", [
  z.object({ id: z.string(), at: z.string(), kind: z.literal("user"), text: z.string() }),
  z.object({ id: z.string(), at: z.string(), kind: z.literal("repair_request"), text: z.string() }),
  z.object({ id: z.string(), at: z.string(), kind: z.literal("assistant"), text: z.string(), toolCalls: z.array(ToolCallSchema) }),
  z.object({ id: z.string(), at: z.string(), kind: z.literal("error"), code: z.string(), message: z.string(), hint: z.string(), partialText: z.string() }),
]);
export type PaneMessage = z.infer<typeof PaneMessageSchema>;

export const TurnSchema = z.object({
  status: z.enum(["completed", "cancelled", "failed", "limit"]),
  assistantSummary: z.string(),
  toolCalls: z.array(ToolCallSchema),
  repairRounds: z.number(),
  error: z.object({ code: z.string(), llmCode: z.string().optional(), message: z.string(), hint: z.string() }).optional(),
});
export type Turn = z.infer<typeof TurnSchema>;

export const SessionStateSchema = z.object({ session: SessionSchema, latestChangeSet: ChangeSetSchema.nullable() });
export type SessionState = z.infer<typeof SessionStateSchema>;
export const SessionDetailSchema = SessionStateSchema.extend({ messages: z.array(PaneMessageSchema), totalMessages: z.number() });
export type SessionDetail = z.infer<typeof SessionDetailSchema>;
export const TurnResponseSchema = SessionStateSchema.extend({ turn: TurnSchema });
export const SessionListSchema = z.object({ sessions: z.array(SessionSchema) });
export const ChangeSetResponseSchema = z.object({ changeSet: ChangeSetSchema });

export const GraphDiffSchema = z.object({
  nodes: z.object({
    added: z.array(WorkflowNodeSchema),
    removed: z.array(WorkflowNodeSchema),
    changed: z.array(z.object({ id: z.string(), before: WorkflowNodeSchema, after: WorkflowNodeSchema, fields: z.array(z.string()), positionOnly: z.boolean() })),
    unchanged: z.number(),
  }),
  edges: z.object({
    added: z.array(WorkflowEdgeSchema),
    removed: z.array(WorkflowEdgeSchema),
    changed: z.array(z.object({ id: z.string(), before: WorkflowEdgeSchema, after: WorkflowEdgeSchema })),
    unchanged: z.number(),
  }),
  workflowFields: z.array(z.string()),
});
export type GraphDiff = z.infer<typeof GraphDiffSchema>;

export const ObjectPreviewSchema = z.object({
  type: ObjectTypeSchema,
  key: z.string(),
  action: z.enum(["create", "update", "delete", "unchanged"]),
  baseRevision: Revision,
  storedRevision: Revision,
  stale: z.boolean(),
  /** The stored object (assets: their text); null when it does not exist. */
  before: z.unknown(),
  /** The staged object; null when the change deletes it. */
  after: z.unknown(),
  changes: z.array(z.object({ op: z.enum(["add", "remove", "replace"]), path: z.string(), before: z.unknown().optional(), after: z.unknown().optional() })),
  unifiedDiff: z.string(),
  graph: GraphDiffSchema.optional(),
});
export type ObjectPreview = z.infer<typeof ObjectPreviewSchema>;

const Revisions = z.record(z.string(), z.number().nullable());
export const RevisionBaseSchema = z.object({ workflows: Revisions, agents: Revisions, scenes: Revisions, assets: z.record(z.string(), z.string().nullable()) });
export type RevisionBase = z.infer<typeof RevisionBaseSchema>;

export const PreviewSchema = z.object({
  changeSetId: z.string(),
  version: z.number(),
  status: ChangeSetStatusSchema,
  summary: z.string(),
  validation: ValidationSchema.nullable(),
  revisionBase: RevisionBaseSchema,
  objects: z.array(ObjectPreviewSchema),
});
export type Preview = z.infer<typeof PreviewSchema>;

/** Apply's warning-first revision check: the stored object moved since the change was staged. */
export const RevisionWarningSchema = BuilderIssueSchema.extend({ code: z.literal("AI_REVISION_BASE_MISMATCH"), field: z.string(), provided: Revision, current: Revision, blocking: z.literal(false) });
export type RevisionWarning = z.infer<typeof RevisionWarningSchema>;

export const ApplyResponseSchema = z.discriminatedUnion("applied", [
  SessionStateSchema.extend({ applied: z.literal(true), changeSetId: z.string(), newRevision: RevisionBaseSchema, warnings: z.array(RevisionWarningSchema) }),
  SessionStateSchema.extend({ applied: z.literal(false), requiresConfirmation: z.literal(true), changeSetId: z.string(), warnings: z.array(RevisionWarningSchema) }),
]);
export type ApplyResponse = z.infer<typeof ApplyResponseSchema>;

export const BuilderSettingsSchema = z.object({ llmProfileId: z.string().nullable() });

/** What the workbench shows of an LLM profile (the key never leaves the server). */
export const LlmProfileSummarySchema = z.object({ id: z.string(), name: z.string(), provider: z.string(), model: z.string(), isDefault: z.boolean(), healthStatus: z.string() });
export type LlmProfileSummary = z.infer<typeof LlmProfileSummarySchema>;
export const LlmProfileListSchema = z.object({ profiles: z.array(LlmProfileSummarySchema) });

/** Agent profiles and scenes, as the target picker lists them. */
const NamedSchema = z.object({ id: z.string(), name: z.string() });
export type Named = z.infer<typeof NamedSchema>;
export const AgentNamesSchema = z.object({ agents: z.array(NamedSchema) });
export const SceneNamesSchema = z.object({ scenes: z.array(NamedSchema) });
