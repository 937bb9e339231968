import { z } from "zod";
import { PortTypeSchema, interfaceInputsJsonSchema, nodeToolPorts, portsJsonSchema, workflowInterface, type NodeSpec, type Workflow } from "@weft/types";
import { baseToolName } from "./safe-name.ts";

/** One parameter of a tool, as the prompt shows it and the parser converts it. */
export const ManifestParamSchema = z.object({
  name: z.string(),
  type: PortTypeSchema,
  required: z.boolean(),
  description: z.string().default(""),
  options: z.array(z.union([z.string(), z.number()])).optional(),
  default: z.unknown().optional(),
  /** A multi port takes a list of values of `type`. */
  multi: z.boolean().default(false),
});
export type ManifestParam = z.infer<typeof ManifestParamSchema>;

/** An atomic tool (a node type) or a skill (a workflow with an interface) the agent may call. */
export const ManifestEntrySchema = z.object({
  /** Node type (`core:text-template`) or workflow id. */
  id: z.string().min(1),
  kind: z.enum(["tool", "skill"]),
  /** LLM-safe name (`core_text_template`, `skill_greet`), unique within its manifest. */
  name: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/),
  description: z.string(),
  /** JSON Schema of the parameters (an object schema, additionalProperties false). */
  inputSchema: z.record(z.string(), z.unknown()),
  params: z.array(ManifestParamSchema),
});
export type ManifestEntry = z.infer<typeof ManifestEntrySchema>;

/** A node type as an atomic tool: its input ports and settings are the parameters (`nodeToolPorts`). */
export function toolEntryFromNodeSpec(spec: NodeSpec): ManifestEntry {
  const ports = nodeToolPorts(spec);
  return {
    id: spec.type,
    kind: "tool",
    name: baseToolName(spec.type, "tool"),
    description: spec.description || spec.title,
    inputSchema: portsJsonSchema(ports, spec.description || undefined),
    params: ports.map((p) => ({
      name: p.id,
      type: p.type,
      required: p.required,
      description: p.description ?? p.label ?? "",
      ...(p.options && p.options.length > 0 ? { options: [...p.options] } : {}),
      ...(p.default !== undefined ? { default: p.default } : {}),
      multi: p.multi,
    })),
  };
}

/** A workflow as a skill: its `core:workflow-input` ports are the parameters. */
export function skillEntryFromWorkflow(workflow: Pick<Workflow, "id" | "name" | "description" | "nodes">): ManifestEntry {
  const iface = workflowInterface(workflow);
  const description = workflow.description || workflow.name;
  return {
    id: workflow.id,
    kind: "skill",
    name: baseToolName(workflow.id, "skill"),
    description,
    inputSchema: interfaceInputsJsonSchema(iface, description || undefined),
    params: iface.inputs.map((p) => ({
      name: p.name,
      type: p.type,
      required: p.required,
      description: p.description,
      ...(p.default !== undefined ? { default: p.default } : {}),
      multi: false,
    })),
  };
}
