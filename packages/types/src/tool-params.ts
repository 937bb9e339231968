import type { ConfigField, NodeSpec } from "./node-spec.ts";
import type { PortSpec, PortType } from "./ports.ts";

/** The port type a config field's value has when it is set as a tool parameter. */
function configFieldType(field: ConfigField): PortType {
  switch (field.kind) {
    case "text":
    case "multiline":
    case "code":
      return "string";
    case "number":
      return "number";
    case "integer":
      return "integer";
    case "boolean":
      return "boolean";
    case "select":
      return field.options?.every((o) => typeof o === "number") ? "number" : "string";
    case "json":
      return "json";
    default: {
      const never: never = field.kind;
      return never;
    }
  }
}

/** Config fields that are tool parameters too: those whose id no input port already uses. */
function settingFields(spec: NodeSpec): ConfigField[] {
  const inputs = new Set(spec.inputs.map((p) => p.id));
  return spec.config.filter((f) => !inputs.has(f.id));
}

/**
 * A node's parameters when it is called alone as an atomic tool: its input ports and its settings
 * (config fields such as `core:math`'s `op`), since a single-node call has no other way to choose them.
 */
export function nodeToolPorts(spec: NodeSpec): PortSpec[] {
  const settings = settingFields(spec).map((field): PortSpec => ({
    id: field.id,
    type: configFieldType(field),
    description: `(setting) ${field.description ?? field.label ?? ""}`.trim(),
    required: field.required && field.default === undefined,
    multi: false,
    ...(field.default !== undefined ? { default: field.default } : {}),
    ...(field.options && field.options.length > 0 ? { options: [...field.options] } : {}),
    ...(field.min !== undefined ? { min: field.min } : {}),
    ...(field.max !== undefined ? { max: field.max } : {}),
  }));
  return [...spec.inputs, ...settings];
}

/** A tool call's parameters split back into the node's literal inputs and its config. */
export function splitToolParams(spec: NodeSpec, params: Record<string, unknown>): { inputs: Record<string, unknown>; config: Record<string, unknown> } {
  const settings = new Set(settingFields(spec).map((f) => f.id));
  const inputs: Record<string, unknown> = {};
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) (settings.has(key) ? config : inputs)[key] = value;
  return { inputs, config };
}
