import { parseArgs } from "node:util";
import { createBuiltinRegistry } from "@weft/nodes";
import type { NodeSpec, PortSpec } from "@weft/types";
import { serverNodes } from "../support/server-nodes.ts";

export const NODES_USAGE =
  "weft nodes [--json] [--server URL]   list the node types (--json: their full specs); with --server, those of a running Weft, its MCP servers' tools (mcp:<server>.<tool>) included (the token from WEFT_AUTH_TOKEN, else <WEFT_DATA_DIR or data>/access-token)";

function port(p: PortSpec): string {
  return `${p.id}:${p.type}${p.multi ? "[]" : ""}${p.required ? "*" : ""}`;
}

function describe(spec: NodeSpec): string {
  const flags = [spec.flags.idempotent ? "cached" : "", spec.flags.streaming ? "streams" : "", spec.flags.dynamicPorts ? "ports from config" : ""].filter(Boolean);
  const inputs = spec.inputs.length > 0 ? spec.inputs.map(port).join(", ") : "—";
  const outputs = spec.outputs.length > 0 ? spec.outputs.map(port).join(", ") : "—";
  return `  ${spec.type}  ${spec.title}${flags.length > 0 ? `  (${flags.join(", ")})` : ""}\n      in: ${inputs}\n      out: ${outputs}\n`;
}

export async function nodesCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: "boolean" }, server: { type: "string" }, help: { type: "boolean", short: "h" } } });
  if (values.help) {
    process.stdout.write(`${NODES_USAGE}\n`);
    return 0;
  }
  const specs = values.server ? await serverNodes(values.server, process.env) : createBuiltinRegistry().list();
  if (values.json) {
    process.stdout.write(`${JSON.stringify(specs, null, 2)}\n`);
    return 0;
  }
  let category = "";
  for (const spec of specs) {
    if (spec.category !== category) {
      category = spec.category;
      process.stdout.write(`\n${category}\n`);
    }
    process.stdout.write(describe(spec));
  }
  process.stdout.write(`\n${specs.length} node types. * = required input, [] = takes several edges.\n`);
  return 0;
}
