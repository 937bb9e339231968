import { IdentifierSchema, type PortSpec, type PortType } from "./ports.ts";

/** One property of a JSON Schema, as far as ports need it. */
interface PropertySchema {
  type?: unknown;
  description?: unknown;
  enum?: unknown;
  default?: unknown;
  title?: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON Schema types that are port types of the same name (an object is `json`). */
const SAME_NAMED_TYPES: ReadonlySet<unknown> = new Set<PortType>(["string", "number", "integer", "boolean", "array"]);
const isSameNamedType = (type: unknown): type is PortType => SAME_NAMED_TYPES.has(type);

/** A JSON Schema type as a Weft port type; unions (other than with null) and objects are `json`. */
export function portTypeOfSchema(schema: unknown): PortType {
  const declared = isRecord(schema) ? schema.type : undefined;
  const types = (Array.isArray(declared) ? declared : [declared]).filter((t) => t !== "null");
  const [type] = types;
  return types.length === 1 && isSameNamedType(type) ? type : "json";
}

function optionsOf(values: unknown): (string | number)[] | undefined {
  if (!Array.isArray(values) || values.length === 0) return undefined;
  return values.every((v) => typeof v === "string" || typeof v === "number") ? (values as (string | number)[]) : undefined;
}

/**
 * One port per top-level property of an object schema, typed by the property's schema. Properties
 * whose names cannot be port ids (`a-b`, `1st`), and ids in `taken`, get no port.
 */
export function schemaPropertyPorts(schema: unknown, options: { required?: boolean; taken?: ReadonlySet<string> } = {}): PortSpec[] {
  const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(isRecord(schema) && Array.isArray(schema.required) ? schema.required : []);
  const ports: PortSpec[] = [];
  for (const [id, raw] of Object.entries(properties)) {
    if (!IdentifierSchema.safeParse(id).success || options.taken?.has(id)) continue;
    const property: PropertySchema = isRecord(raw) ? raw : {};
    const choices = optionsOf(property.enum);
    ports.push({
      id,
      type: portTypeOfSchema(property),
      required: options.required === true && required.has(id),
      multi: false,
      ...(typeof property.title === "string" ? { label: property.title } : {}),
      ...(typeof property.description === "string" ? { description: property.description } : {}),
      ...(property.default !== undefined ? { default: property.default } : {}),
      ...(choices ? { options: choices } : {}),
    });
  }
  return ports;
}
