import { z } from "zod";
import { AgentProfileSchema, SceneSchema, WorkflowEdgeSchema, WorkflowNodeSchema, WorkflowSchema } from "@weft/types";

/** The largest asset text a change may write (the tools' default read limit, so a staged asset can always be read back whole). */
export const MAX_ASSET_BYTES = 128 * 1024;

const Id = z.string().trim().min(1).max(200);

/**
 * One edit the model stages (seed 001 §6.2 `changeSet`). Whole documents (`*.put`) or single
 * nodes and edges of a workflow; revisions are managed by apply, so a `revision` sent here is ignored.
 */
export const ChangeOperationSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("workflow.put"), workflow: WorkflowSchema }).strict(),
  z.object({ op: z.literal("workflow.delete"), workflowId: Id }).strict(),
  z.object({ op: z.literal("node.put"), workflowId: Id, node: WorkflowNodeSchema }).strict(),
  z.object({ op: z.literal("node.remove"), workflowId: Id, nodeId: Id }).strict(),
  z.object({ op: z.literal("edge.put"), workflowId: Id, edge: WorkflowEdgeSchema }).strict(),
  z.object({ op: z.literal("edge.remove"), workflowId: Id, edgeId: Id }).strict(),
  z.object({ op: z.literal("agent.put"), agent: AgentProfileSchema }).strict(),
  z.object({ op: z.literal("agent.delete"), agentId: Id }).strict(),
  z.object({ op: z.literal("scene.put"), scene: SceneSchema }).strict(),
  z.object({ op: z.literal("scene.delete"), sceneId: Id }).strict(),
  z
    .object({
      op: z.literal("asset.put"),
      path: z.string().min(1).max(1024),
      content: z.string().refine((text) => Buffer.byteLength(text, "utf8") <= MAX_ASSET_BYTES, `is larger than ${MAX_ASSET_BYTES} bytes; split the asset into smaller files`),
    })
    .strict(),
]);
export type ChangeOperation = z.infer<typeof ChangeOperationSchema>;
export const CHANGE_OPS = ChangeOperationSchema.options.map((o) => o.shape.op.value);

/** What `builder.change.stage` takes: a one-line summary for the conversation pane and the operations. */
export const StageRequestSchema = z
  .object({
    summary: z.string().trim().min(1).max(500),
    operations: z.array(ChangeOperationSchema).min(1).max(200),
  })
  .strict();
export type StageRequest = z.infer<typeof StageRequestSchema>;

/**
 * One object of the working copy: its effective content (null = deleted) and the stored state it
 * was based on when first staged (`base`: the stored revision, or the file's SHA-256; null = it did not exist).
 */
export const OverlayEntrySchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("workflow"), key: z.string(), base: z.number().int().nullable(), value: WorkflowSchema.nullable() }),
  z.object({ type: z.literal("agent"), key: z.string(), base: z.number().int().nullable(), value: AgentProfileSchema.nullable() }),
  z.object({ type: z.literal("scene"), key: z.string(), base: z.number().int().nullable(), value: SceneSchema.nullable() }),
  z.object({ type: z.literal("asset"), key: z.string(), base: z.string().nullable(), value: z.string().nullable() }),
]);
export type OverlayEntry = z.infer<typeof OverlayEntrySchema>;
