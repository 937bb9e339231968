import { z } from "zod";
import { NodeTypeIdSchema } from "./node-spec.ts";
import { PortSpecSchema } from "./ports.ts";

export const PositionSchema = z.object({ x: z.number(), y: z.number() });

export const NodePolicySchema = z.object({
  /**
   * stop: cancel the whole run; continue: fail this node, skip its dependents, finish the rest (the run fails);
   * route: the error becomes data on the `$error` output (`{ code, message, nodeId, nodeTitle, attempt }`), the node's
   * observation is `failed` with `handled: true`, what reads its other outputs is skipped and the run goes on.
   */
  onError: z.enum(["stop", "continue", "route"]).default("continue"),
  retries: z.number().int().min(0).max(10).default(0),
  retryBackoffMs: z.number().int().min(0).default(200),
  timeoutMs: z.number().int().positive().optional(),
  /** Allow caching a non-idempotent node's outputs (explicit opt-in). */
  cacheable: z.boolean().optional(),
});
export type NodePolicy = z.infer<typeof NodePolicySchema>;

/** A node id: no whitespace and no `/` (reserved for skill namespacing). Also read by workflow-decode.ts. */
export const NODE_ID_PATTERN = /^[^\s/]+$/;

export const WorkflowNodeSchema = z.object({
  id: z.string().min(1).regex(NODE_ID_PATTERN, "node ids contain no whitespace and no `/` (reserved for skill namespacing)"),
  type: NodeTypeIdSchema,
  position: PositionSchema.default({ x: 0, y: 0 }),
  config: z.record(z.string(), z.unknown()).default({}),
  /** Literal input values; an edge into the same port overrides them. */
  inputs: z.record(z.string(), z.unknown()).default({}),
  policy: NodePolicySchema.optional(),
  /**
   * Ports of a node whose spec has `dynamicPorts` (e.g. `core:skill`, whose ports are the called
   * workflow's interface). Written by the editor when the node is configured; checked by the engine.
   */
  ports: z.object({ inputs: z.array(PortSpecSchema).default([]), outputs: z.array(PortSpecSchema).default([]) }).optional(),
  label: z.string().optional(),
  /** Pinned outputs (n8n's pinned data): the engine does not run the node and hands these on instead. */
  pinned: z.record(z.string(), z.unknown()).optional(),
  /** Editor-only state (collapsed, colour, width...). Ignored by the engine. */
  ui: z.record(z.string(), z.unknown()).optional(),
});
export type WorkflowNode = z.infer<typeof WorkflowNodeSchema>;

export const WorkflowEdgeSchema = z.object({
  id: z.string().min(1),
  source: z.string().min(1),
  sourceHandle: z.string().min(1),
  target: z.string().min(1),
  targetHandle: z.string().min(1),
});
export type WorkflowEdge = z.infer<typeof WorkflowEdgeSchema>;

/** Editor annotations: frames grouping nodes and free comments. Ignored by the engine. */
export const AnnotationSchema = z.object({
  id: z.string().min(1),
  kind: z.enum(["frame", "comment"]),
  position: PositionSchema,
  size: z.object({ width: z.number(), height: z.number() }).optional(),
  text: z.string().default(""),
  color: z.string().optional(),
});

export const WorkflowSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().default(""),
  revision: z.number().int().min(0).default(0),
  nodes: z.array(WorkflowNodeSchema),
  edges: z.array(WorkflowEdgeSchema).default([]),
  annotations: z.array(AnnotationSchema).default([]),
  tags: z.array(z.string()).default([]),
  /**
   * The workflow that runs when a run of this one fails (status `failed`; not cancelled, interrupted or over budget),
   * with the failed run's context as inputs (see ERROR_WORKFLOW_INPUTS); a run of an error workflow starts none.
   */
  errorWorkflowId: z.string().min(1).optional(),
});
export type Workflow = z.infer<typeof WorkflowSchema>;
export type WorkflowInput = z.input<typeof WorkflowSchema>;
