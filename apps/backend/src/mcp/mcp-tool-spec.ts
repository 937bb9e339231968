import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { IdentifierSchema, type NodeSpec, type PortSpec, type PortType } from "@weft/types";

/** `mcp:<server>.<tool>`: node types are lower case with `-`, so `create_entities` becomes `create-entities`. */
export function mcpNodeType(server: string, tool: string): string {
  const name = tool.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^[^a-z]+/, "");
  return `mcp:${server}.${name || "tool"}`;
}

/** The input port that passes further arguments as one object. */
export const ARGUMENTS_PORT = "arguments";

interface JsonSchemaProperty {
  type?: unknown;
  description?: unknown;
  enum?: unknown;
  default?: unknown;
  title?: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A JSON Schema type as a Weft port type; unions (other than with null) and objects are `json`. */
function portTypeOf(schema: JsonSchemaProperty): PortType {
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((t) => t !== "null");
  if (types.length !== 1) return "json";
  switch (types[0]) {
    case "string":
      return "string";
    case "number":
      return "number";
    case "integer":
      return "integer";
    case "boolean":
      return "boolean";
    case "array":
      return "array";
    default:
      return "json";
  }
}

function optionsOf(values: unknown): (string | number)[] | undefined {
  if (!Array.isArray(values) || values.length === 0) return undefined;
  return values.every((v) => typeof v === "string" || typeof v === "number") ? (values as (string | number)[]) : undefined;
}

/**
 * The input ports of a tool: one per property of its input schema. Properties whose names cannot be
 * port ids (`a-b`, `1st`) are left out of the ports; the `arguments` port passes them (and any other
 * argument) as one object.
 */
export function inputPortsOf(inputSchema: Tool["inputSchema"]): PortSpec[] {
  const properties = isRecord(inputSchema.properties) ? inputSchema.properties : {};
  const required = new Set(Array.isArray(inputSchema.required) ? inputSchema.required : []);
  const ports: PortSpec[] = [];
  for (const [id, raw] of Object.entries(properties)) {
    if (!IdentifierSchema.safeParse(id).success || id === ARGUMENTS_PORT) continue;
    const schema: JsonSchemaProperty = isRecord(raw) ? raw : {};
    const options = optionsOf(schema.enum);
    ports.push({
      id,
      type: portTypeOf(schema),
      required: required.has(id),
      multi: false,
      ...(typeof schema.title === "string" ? { label: schema.title } : {}),
      ...(typeof schema.description === "string" ? { description: schema.description } : {}),
      ...(schema.default !== undefined ? { default: schema.default } : {}),
      ...(options ? { options } : {}),
    });
  }
  ports.push({ id: ARGUMENTS_PORT, type: "json", required: false, multi: false, label: "More arguments", description: "An object of further arguments, merged under the ports' values (for properties that have no port)." });
  return ports;
}

const OUTPUT_PORTS: PortSpec[] = [
  { id: "result", type: "json", label: "Result", required: false, multi: false, description: "The tool's whole result: { ok: true, content, structured } or { ok: false, error: { code, message } }." },
  { id: "ok", type: "boolean", label: "OK", required: false, multi: false, description: "Whether the tool succeeded; when false, `result.error` says why." },
  { id: "text", type: "string", label: "Text", required: false, multi: false, description: "The text parts of the tool's answer, joined." },
  { id: "structured", type: "json", label: "Structured", required: false, multi: false, description: "The tool's structured content, when it returns any." },
];

/** The node spec of one MCP tool. */
export function mcpNodeSpec(server: string, tool: Tool): NodeSpec {
  return {
    type: mcpNodeType(server, tool.name),
    version: 1,
    title: tool.title ?? tool.annotations?.title ?? `${server}: ${tool.name}`,
    description: `${tool.description ?? ""}${tool.description ? " " : ""}(MCP tool "${tool.name}" of the server "${server}".)`.trim(),
    category: "mcp",
    inputs: inputPortsOf(tool.inputSchema),
    outputs: OUTPUT_PORTS,
    config: [],
    flags: { idempotent: false, streaming: false, acceptsPartialInputs: false, dynamicPorts: false },
  };
}
