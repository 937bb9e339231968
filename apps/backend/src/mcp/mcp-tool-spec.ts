import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { schemaPropertyPorts, type NodeSpec, type PortSpec } from "@weft/types";

/** `mcp:<server>.<tool>`: node types are lower case with `-`, so `create_entities` becomes `create-entities`. */
export function mcpNodeType(server: string, tool: string): string {
  const name = tool
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^[^a-z]+/, "");
  return `mcp:${server}.${name || "tool"}`;
}

/** The input port that passes further arguments as one object. */
export const ARGUMENTS_PORT = "arguments";

/**
 * The input ports of a tool: one per property of its input schema. Properties whose names cannot be
 * port ids (`a-b`, `1st`) are left out of the ports; the `arguments` port passes them (and any other
 * argument) as one object.
 */
export function inputPortsOf(inputSchema: Tool["inputSchema"]): PortSpec[] {
  return [
    ...schemaPropertyPorts(inputSchema, { required: true, taken: new Set([ARGUMENTS_PORT]) }),
    {
      id: ARGUMENTS_PORT,
      type: "json",
      required: false,
      multi: false,
      label: "More arguments",
      description: "An object of further arguments, merged under the ports' values (for properties that have no port).",
    },
  ];
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
    // The server's progress reports stream as chunks ({ progress, total?, message? }).
    flags: { idempotent: false, streaming: true, acceptsPartialInputs: false, dynamicPorts: false },
  };
}
