import { z } from "zod";
import { IdentifierSchema, PortTypeSchema } from "./ports.ts";
import type { Workflow } from "./workflow.ts";

export const WORKFLOW_INPUT_TYPE = "core:workflow-input";
export const WORKFLOW_OUTPUT_TYPE = "core:workflow-output";
export const SKILL_NODE_TYPE = "core:skill";

export const InterfacePortSchema = z.object({
  name: IdentifierSchema,
  type: PortTypeSchema.default("any"),
  required: z.boolean().default(false),
  default: z.unknown().optional(),
  description: z.string().default(""),
  /** The workflow node that declares this port. */
  nodeId: z.string(),
});
export type InterfacePort = z.infer<typeof InterfacePortSchema>;

export const WorkflowInterfaceSchema = z.object({
  inputs: z.array(InterfacePortSchema),
  outputs: z.array(InterfacePortSchema),
});
export type WorkflowInterface = z.infer<typeof WorkflowInterfaceSchema>;

/** Config of `core:workflow-input` / `core:workflow-output` nodes. */
export const InterfaceNodeConfigSchema = z.object({
  name: IdentifierSchema,
  portType: PortTypeSchema.default("any"),
  required: z.boolean().default(false),
  default: z.unknown().optional(),
  description: z.string().default(""),
});

/**
 * The interface of a workflow: one port per `core:workflow-input` / `core:workflow-output` node.
 * Nodes whose config is invalid are left out here; graph validation reports them.
 */
export function workflowInterface(workflow: Pick<Workflow, "nodes">): WorkflowInterface {
  const inputs: InterfacePort[] = [];
  const outputs: InterfacePort[] = [];
  for (const node of workflow.nodes) {
    if (node.type !== WORKFLOW_INPUT_TYPE && node.type !== WORKFLOW_OUTPUT_TYPE) continue;
    const parsed = InterfaceNodeConfigSchema.safeParse(node.config);
    if (!parsed.success) continue;
    const port: InterfacePort = {
      name: parsed.data.name,
      type: parsed.data.portType,
      required: node.type === WORKFLOW_INPUT_TYPE ? parsed.data.required : false,
      default: parsed.data.default,
      description: parsed.data.description,
      nodeId: node.id,
    };
    (node.type === WORKFLOW_INPUT_TYPE ? inputs : outputs).push(port);
  }
  return { inputs, outputs };
}

/** A workflow with at least one interface port is a skill. */
export function isSkill(workflow: Pick<Workflow, "nodes">): boolean {
  const iface = workflowInterface(workflow);
  return iface.inputs.length + iface.outputs.length > 0;
}

/** One stored workflow in the workflow list (`GET /api/workflows`). */
export const WorkflowSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  revision: z.number().int(),
  tags: z.array(z.string()),
  nodeCount: z.number().int().nonnegative(),
  /** Epoch milliseconds. */
  updatedAt: z.number(),
  isSkill: z.boolean(),
  interface: WorkflowInterfaceSchema,
  /** Shipped with Weft: "built-in" (the system runs it; read-only, duplicated to be changed) or "example". */
  origin: z.enum(["built-in", "example"]).optional(),
});
export type WorkflowSummary = z.infer<typeof WorkflowSummarySchema>;
