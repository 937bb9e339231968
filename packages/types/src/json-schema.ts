import type { PortSpec, PortType } from "./ports.ts";
import { MEDIA_JSON_SCHEMA } from "./media.ts";
import type { NodeSpec } from "./node-spec.ts";
import type { WorkflowInterface } from "./interface.ts";

export type JsonSchema = { [key: string]: unknown };

export function portTypeJsonSchema(type: PortType): JsonSchema {
  switch (type) {
    case "string":
      return { type: "string" };
    case "number":
      return { type: "number" };
    case "integer":
      return { type: "integer" };
    case "boolean":
      return { type: "boolean" };
    case "array":
      return { type: "array" };
    case "messages":
      return {
        type: "array",
        items: {
          type: "object",
          properties: { role: { type: "string", enum: ["system", "user", "assistant", "tool"] }, content: { type: ["string", "null"] } },
          required: ["role"],
        },
      };
    case "image":
    case "file":
      return MEDIA_JSON_SCHEMA;
    case "json":
    case "any":
      return {};
    default: {
      const never: never = type;
      return never;
    }
  }
}

interface SchemaPort {
  name: string;
  type: PortType;
  required: boolean;
  description?: string;
  default?: unknown;
  options?: ReadonlyArray<string | number>;
  multi?: boolean;
  min?: number;
  max?: number;
}

function objectSchema(ports: SchemaPort[], description?: string): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const p of ports) {
    let s: JsonSchema = { ...portTypeJsonSchema(p.type) };
    if (p.options && p.options.length > 0) s.enum = [...p.options];
    if (p.min !== undefined) s.minimum = p.min;
    if (p.max !== undefined) s.maximum = p.max;
    if (p.multi) s = { type: "array", items: s };
    if (p.description) s.description = p.description;
    if (p.default !== undefined) s.default = p.default;
    properties[p.name] = s;
    if (p.required) required.push(p.name);
  }
  const schema: JsonSchema = { type: "object", properties, required, additionalProperties: false };
  if (description) schema.description = description;
  return schema;
}

function fromPortSpec(p: PortSpec): SchemaPort {
  return { ...p, name: p.id };
}

/** JSON Schema of an object whose properties are the given ports. */
export function portsJsonSchema(ports: PortSpec[], description?: string): JsonSchema {
  return objectSchema(ports.map(fromPortSpec), description);
}

/** JSON Schema of a node's inputs. */
export function nodeInputsJsonSchema(spec: NodeSpec): JsonSchema {
  return portsJsonSchema(spec.inputs, spec.description || undefined);
}

/** JSON Schema of a node's outputs. */
export function nodeOutputsJsonSchema(spec: NodeSpec): JsonSchema {
  return objectSchema(spec.outputs.map(fromPortSpec));
}

/** JSON Schema of a workflow interface's inputs: the parameters of the workflow used as a skill. */
export function interfaceInputsJsonSchema(iface: WorkflowInterface, description?: string): JsonSchema {
  return objectSchema(iface.inputs, description);
}

export function interfaceOutputsJsonSchema(iface: WorkflowInterface): JsonSchema {
  return objectSchema(iface.outputs);
}
