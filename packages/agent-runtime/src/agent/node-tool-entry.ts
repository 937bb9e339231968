import type { ConfigField, NodeSpec, PortType } from "@weft/types";
import { toolEntryFromNodeSpec, type ManifestEntry, type ManifestParam } from "../action/index.ts";

/** The port type a config field's value has when the model sets it as a parameter. */
function configPortType(field: ConfigField): PortType {
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

/** Config fields that become parameters: those whose id no input port already uses. */
function settingFields(spec: NodeSpec): ConfigField[] {
  const inputs = new Set(spec.inputs.map((p) => p.id));
  return spec.config.filter((f) => !inputs.has(f.id));
}

/**
 * A node type as an agent's atomic tool: its input ports and also its settings (config fields such
 * as `core:math`'s `op`), because a single-node call has no other way to choose them. Settings are
 * optional parameters with their default; `splitToolParams` sends them back to the node's config.
 */
export function nodeToolEntry(spec: NodeSpec): ManifestEntry {
  const entry = toolEntryFromNodeSpec(spec);
  const fields = settingFields(spec);
  if (fields.length === 0) return entry;
  const schema = entry.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
  const properties: Record<string, unknown> = { ...(schema.properties ?? {}) };
  const required = [...(schema.required ?? [])];
  const params: ManifestParam[] = [...entry.params];
  for (const field of fields) {
    const type = configPortType(field);
    const description = `(setting) ${field.description ?? field.label ?? ""}`.trim();
    const prop: Record<string, unknown> = {};
    if (type !== "json") prop.type = type;
    if (field.options && field.options.length > 0) prop.enum = [...field.options];
    if (field.min !== undefined) prop.minimum = field.min;
    if (field.max !== undefined) prop.maximum = field.max;
    prop.description = description;
    if (field.default !== undefined) prop.default = field.default;
    properties[field.id] = prop;
    if (field.required && field.default === undefined) required.push(field.id);
    params.push({
      name: field.id,
      type,
      required: field.required && field.default === undefined,
      description,
      ...(field.options && field.options.length > 0 ? { options: [...field.options] } : {}),
      ...(field.default !== undefined ? { default: field.default } : {}),
      multi: false,
    });
  }
  return { ...entry, params, inputSchema: { ...entry.inputSchema, properties, required } };
}

/** A call's parameters split into the node's inputs and its config (the settings). */
export function splitToolParams(spec: NodeSpec | undefined, params: Record<string, unknown>): { inputs: Record<string, unknown>; config: Record<string, unknown> } {
  if (!spec) return { inputs: params, config: {} };
  const settings = new Set(settingFields(spec).map((f) => f.id));
  const inputs: Record<string, unknown> = {};
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) (settings.has(key) ? config : inputs)[key] = value;
  return { inputs, config };
}
