import { z } from "zod";
import { IdentifierSchema, PortSpecSchema } from "./ports.ts";

/** `namespace:name`, e.g. `core:text-template`. */
export const NodeTypeIdSchema = z.string().regex(/^[a-z][a-z0-9-]*:[a-z][a-z0-9._-]*$/, "a node type is `namespace:name` in lower case, e.g. `core:text-template`");

export const CONFIG_FIELD_KINDS = ["text", "multiline", "number", "integer", "boolean", "select", "json", "code"] as const;

export const ConfigFieldSchema = z.object({
  id: IdentifierSchema,
  kind: z.enum(CONFIG_FIELD_KINDS),
  label: z.string().optional(),
  description: z.string().optional(),
  default: z.unknown().optional(),
  required: z.boolean().default(false),
  options: z.array(z.union([z.string(), z.number()])).optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  language: z.string().optional(),
  /** What a text field's value names: "skill", the id of a saved skill (editors offer a picker of them instead of a text box). */
  refersTo: z.enum(["skill"]).optional(),
});
export type ConfigField = z.infer<typeof ConfigFieldSchema>;
export type ConfigFieldInput = z.input<typeof ConfigFieldSchema>;

export const NodeFlagsSchema = z.object({
  /** Same inputs + config always give the same outputs, with no side effects: outputs may be cached. */
  idempotent: z.boolean().default(false),
  /** The node yields chunks before its outputs. */
  streaming: z.boolean().default(false),
  /** Runs even when some of its (optional or multi) inputs come from a failed or untaken branch. */
  acceptsPartialInputs: z.boolean().default(false),
  /** The node's ports come from the workflow node (`ports`), not from this spec. */
  dynamicPorts: z.boolean().default(false),
  /** A config field holding a JSON Schema: each of its top-level properties is an output too, after the spec's own. */
  outputsFromSchema: z.string().optional(),
});

export const NodeSpecSchema = z.object({
  type: NodeTypeIdSchema,
  /** Bumped when behaviour changes, so cached outputs of older versions are not reused. */
  version: z.number().int().positive().default(1),
  title: z.string().min(1),
  description: z.string().default(""),
  category: z.string().default("misc"),
  inputs: z.array(PortSpecSchema).default([]),
  outputs: z.array(PortSpecSchema).default([]),
  config: z.array(ConfigFieldSchema).default([]),
  flags: NodeFlagsSchema.default({ idempotent: false, streaming: false, acceptsPartialInputs: false, dynamicPorts: false }),
});
export type NodeSpec = z.infer<typeof NodeSpecSchema>;
export type NodeSpecInput = z.input<typeof NodeSpecSchema>;

/** Output handle every node gets when its error policy is `route`. */
export const ERROR_OUTPUT_ID = "$error";
