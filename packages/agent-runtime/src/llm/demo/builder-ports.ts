import { z } from "zod";
import { declaredPorts, NodeSpecSchema, portTypeMismatch, type ConfigField, type NodeSpec, type PortSpec, type PortType, type WorkflowNode } from "@weft/types";

/**
 * Node types and ports as the Builder's read tools describe them (`builder_node_read`'s
 * `nodeType`, `builder_catalog_list`'s detailed entries), and the typing rules the demo uses to
 * wire a node and to turn a user's words into a setting's value.
 */

/** A catalogue entry; ports and config are there only when the catalogue answered in detail. */
export const CatalogEntrySchema = z.looseObject({
  type: z.string(),
  title: z.string(),
  category: z.string().optional(),
  description: z.string().optional(),
  inputs: z.array(z.unknown()).optional(),
  outputs: z.array(z.unknown()).optional(),
  config: z.array(z.unknown()).optional(),
});
export type CatalogEntry = z.infer<typeof CatalogEntrySchema>;

/** The spec of a node type described by a read tool, or undefined when it lacks ports (a short catalogue entry). */
export function specOf(described: unknown): NodeSpec | undefined {
  const entry = CatalogEntrySchema.safeParse(described);
  if (!entry.success || !entry.data.inputs || !entry.data.outputs) return undefined;
  const spec = NodeSpecSchema.safeParse(entry.data);
  return spec.success ? spec.data : undefined;
}

/** The ports a node has: its own (`ports`, e.g. a skill call's), or its type's with interface nodes typed by `portType`. */
export function portsOfNode(node: WorkflowNode, spec: NodeSpec): { inputs: readonly PortSpec[]; outputs: readonly PortSpec[] } {
  if (node.ports) return node.ports;
  return declaredPorts(node, spec);
}

export function fits(source: PortType, target: PortType): boolean {
  return portTypeMismatch(source, target) === null;
}

export type Coerced = { ok: true; value: unknown } | { ok: false; reason: string };

const TRUE = /^(true|yes|on|1)$/i;
const FALSE = /^(false|no|off|0)$/i;

/** The user's text as a value of a config field. */
export function coerceConfig(text: string, field: ConfigField): Coerced {
  switch (field.kind) {
    case "text":
    case "multiline":
    case "code":
      return { ok: true, value: text };
    case "number":
    case "integer":
      return asNumber(text, field.kind === "integer");
    case "boolean":
      return asBoolean(text);
    case "select": {
      const option = (field.options ?? []).find((o) => String(o).toLowerCase() === text.toLowerCase());
      return option === undefined ? { ok: false, reason: `must be one of ${(field.options ?? []).map((o) => `"${o}"`).join(", ")}` } : { ok: true, value: option };
    }
    case "json":
      return { ok: true, value: jsonOrText(text) };
    default: {
      const never: never = field.kind;
      return never;
    }
  }
}

/** The user's text as a literal value of an input port. */
export function coerceInput(text: string, port: PortSpec): Coerced {
  switch (port.type) {
    case "string":
      return { ok: true, value: text };
    case "number":
    case "integer":
      return asNumber(text, port.type === "integer");
    case "boolean":
      return asBoolean(text);
    case "array":
    case "messages": {
      const value = jsonOrText(text);
      return Array.isArray(value) ? { ok: true, value } : { ok: false, reason: "must be a JSON array, e.g. [1, 2]" };
    }
    case "json":
    case "image":
    case "file":
    case "any":
      return { ok: true, value: jsonOrText(text) };
    default: {
      const never: never = port.type;
      return never;
    }
  }
}

function asNumber(text: string, integer: boolean): Coerced {
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n)) return { ok: false, reason: "must be a number" };
  if (integer && !Number.isInteger(n)) return { ok: false, reason: "must be a whole number" };
  return { ok: true, value: n };
}

function asBoolean(text: string): Coerced {
  if (TRUE.test(text)) return { ok: true, value: true };
  if (FALSE.test(text)) return { ok: true, value: false };
  return { ok: false, reason: "must be true or false" };
}

function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
