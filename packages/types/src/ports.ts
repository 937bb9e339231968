import { z } from "zod";
import { isMediaValue } from "./media.ts";

export const PORT_TYPES = ["string", "number", "integer", "boolean", "json", "array", "messages", "image", "file", "any"] as const;
export const PortTypeSchema = z.enum(PORT_TYPES);
export type PortType = z.infer<typeof PortTypeSchema>;

/** An identifier usable as a port id, config key or interface name (also a valid XML tag and JSON Schema key). */
export const IdentifierSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must start with a letter or _ and contain only letters, digits and _");

export const PortSpecSchema = z.object({
  id: IdentifierSchema,
  type: PortTypeSchema,
  label: z.string().optional(),
  description: z.string().optional(),
  required: z.boolean().default(false),
  default: z.unknown().optional(),
  /** A multi input takes several edges, ordered, and receives them as an array. */
  multi: z.boolean().default(false),
  /** Allowed values (rendered as a select widget and a JSON Schema enum). */
  options: z.array(z.union([z.string(), z.number()])).optional(),
  multiline: z.boolean().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
});
export type PortSpec = z.infer<typeof PortSpecSchema>;
export type PortSpecInput = z.input<typeof PortSpecSchema>;

/** Types a `json` port accepts from upstream without conversion. */
const JSON_COMPATIBLE = new Set<PortType>(["string", "number", "integer", "boolean", "json", "array", "messages", "image", "file"]);

/**
 * Whether an edge from a port of type `source` may feed a port of type `target`.
 * Returns null when it fits, otherwise the reason (shown in the editor and in validation).
 */
export function portTypeMismatch(source: PortType, target: PortType): string | null {
  if (source === target || source === "any" || target === "any") return null;
  if (target === "json" && JSON_COMPATIBLE.has(source)) return null;
  if (source === "integer" && target === "number") return null;
  if (source === "messages" && target === "array") return null;
  // Every image is a file.
  if (source === "image" && target === "file") return null;
  if (source === "json") return null; // json is only known at run time; checked by the receiving node
  return `a ${source} output cannot feed a ${target} input`;
}

/** Runtime check of a value against a port type (used for interface inputs and tool parameters). */
export function valueMatchesPortType(value: unknown, type: PortType): boolean {
  switch (type) {
    case "any":
    case "json":
      return true;
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "messages":
      return Array.isArray(value) && value.every((m) => typeof m === "object" && m !== null && "role" in m);
    case "image":
    case "file":
      return isMediaValue(value, type);
    default: {
      const never: never = type;
      return never;
    }
  }
}
