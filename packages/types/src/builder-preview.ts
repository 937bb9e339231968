import { z } from "zod";
import { RevisionWarningSchema, ValidationReportSchema } from "./builder-issues.ts";
import { BuilderSessionStateSchema, ChangeSetStatusSchema } from "./builder-session.ts";
import { BuilderObjectTypeSchema, ObjectRevisionSchema } from "./builder-target.ts";
import { WorkflowEdgeSchema, WorkflowNodeSchema } from "./workflow.ts";

/** A Builder change set's preview and its manual apply, as the HTTP API answers them (docs/api.md "Builder AI"). */

/** One difference between two JSON documents, at a readable path such as `nodes[id=draft].config.template`. */
export const JsonChangeSchema = z.object({ op: z.enum(["add", "remove", "replace"]), path: z.string(), before: z.unknown().optional(), after: z.unknown().optional() });
export type JsonChange = z.infer<typeof JsonChangeSchema>;

export const NodeChangeSchema = z.object({
  id: z.string(),
  before: WorkflowNodeSchema,
  after: WorkflowNodeSchema,
  /** Top-level node fields that differ, e.g. `config`, `inputs`, `position`. */
  fields: z.array(z.string()),
  /** Only the node's place on the canvas changed. */
  positionOnly: z.boolean(),
});
export type NodeChange = z.infer<typeof NodeChangeSchema>;

/** What the workbench highlights on the canvas: nodes and edges added, removed or changed. */
export const GraphDiffSchema = z.object({
  nodes: z.object({ added: z.array(WorkflowNodeSchema), removed: z.array(WorkflowNodeSchema), changed: z.array(NodeChangeSchema), unchanged: z.number().int() }),
  edges: z.object({
    added: z.array(WorkflowEdgeSchema),
    removed: z.array(WorkflowEdgeSchema),
    changed: z.array(z.object({ id: z.string(), before: WorkflowEdgeSchema, after: WorkflowEdgeSchema })),
    unchanged: z.number().int(),
  }),
  /** Workflow fields other than nodes and edges that differ (`name`, `description`, `tags`, `annotations`). */
  workflowFields: z.array(z.string()),
});
export type GraphDiff = z.infer<typeof GraphDiffSchema>;

export const PreviewActionSchema = z.enum(["create", "update", "delete", "unchanged"]);
export type PreviewAction = z.infer<typeof PreviewActionSchema>;

/** One object of a change as the workbench shows it. */
export const ObjectPreviewSchema = z.object({
  type: BuilderObjectTypeSchema,
  key: z.string(),
  action: PreviewActionSchema,
  /** The stored revision (assets: SHA-256) the change was based on; null: it did not exist. */
  baseRevision: ObjectRevisionSchema,
  /** The stored revision now. */
  storedRevision: ObjectRevisionSchema,
  /** The store moved since the change was staged: applying it overwrites that (apply warns and asks). */
  stale: z.boolean(),
  /** The stored object (assets: their text); null when it does not exist. */
  before: z.unknown(),
  /** The staged object; null when the change deletes it. */
  after: z.unknown(),
  /** Field-level differences (documents; for assets, the text as a whole). */
  changes: z.array(JsonChangeSchema),
  /** A unified diff of the two sides (pretty JSON with sorted keys for documents, the text for assets). */
  unifiedDiff: z.string(),
  /** Workflows only: nodes and edges added, removed and changed. */
  graph: GraphDiffSchema.optional(),
});
export type ObjectPreview = z.infer<typeof ObjectPreviewSchema>;

/** Each object's stored revision by kind (assets: SHA-256; null: it does not exist). */
const DocumentRevisions = z.record(z.string(), z.number().int().nullable());
export const RevisionBaseSchema = z.object({ workflows: DocumentRevisions, agents: DocumentRevisions, scenes: DocumentRevisions, assets: z.record(z.string(), z.string().nullable()) });
export type RevisionBase = z.infer<typeof RevisionBaseSchema>;

/** The structured diff of a change set against the store as it is now (seed 001 §10 preview pane). */
export const ChangePreviewSchema = z.object({
  changeSetId: z.string(),
  version: z.number().int(),
  status: ChangeSetStatusSchema,
  summary: z.string(),
  validation: ValidationReportSchema.nullable(),
  /** What to send back as `revisionBase` when applying: the bases the change was staged on. */
  revisionBase: RevisionBaseSchema,
  objects: z.array(ObjectPreviewSchema),
});
export type ChangePreview = z.infer<typeof ChangePreviewSchema>;

/** The only confirmation source apply accepts: the user's click in the workbench. */
export const APPLY_CONFIRM_SOURCE = "ui_manual_apply";

/** Apply's answer: applied, or (warning-first) held until the user confirms the revision warnings. */
export const BuilderApplyResponseSchema = z.discriminatedUnion("applied", [
  BuilderSessionStateSchema.extend({ applied: z.literal(true), changeSetId: z.string(), newRevision: RevisionBaseSchema, warnings: z.array(RevisionWarningSchema) }),
  BuilderSessionStateSchema.extend({ applied: z.literal(false), requiresConfirmation: z.literal(true), changeSetId: z.string(), warnings: z.array(RevisionWarningSchema) }),
]);
export type BuilderApplyResponse = z.infer<typeof BuilderApplyResponseSchema>;
