import type { ToolDefinition, ToolSource } from "@weft/agent-runtime";
import { streamProgress } from "@weft/nodes";
import { NodeFailure, type NodeCatalog, type NodeDefinition, type NodeSpec, type NodeValues, type ToolResult } from "@weft/types";
import type { McpManager, McpToolEntry } from "./mcp-manager.ts";
import { ARGUMENTS_PORT } from "./mcp-tool-spec.ts";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The node's inputs as the tool's arguments: the `arguments` object first, the ports' values over it. */
function argumentsOf(inputs: NodeValues): Record<string, unknown> {
  const { [ARGUMENTS_PORT]: extra, ...ports } = inputs;
  const given = Object.fromEntries(Object.entries(ports).filter(([, value]) => value !== undefined && value !== null));
  return { ...(isRecord(extra) ? extra : {}), ...given };
}

/**
 * An MCP tool as a node: it calls the tool through the run's tool host, so the permission rules
 * (`mcp.*`, `mcp:<server>.<tool>`) and the audit log apply as to every other tool. The server's progress
 * reports are the node's streamed chunks. A tool that answers `isError` fails the node with the server's
 * message (its `$error` output when the node routes errors); a call refused or lost before an answer is
 * the `ok: false` result other tool nodes give, for the workflow to react to.
 */
function nodeOf(entry: McpToolEntry): NodeDefinition {
  const type = entry.spec.type;
  return {
    spec: entry.spec,
    execute: async function* (inputs, ctx) {
      const host = ctx.services.toolHost;
      if (!host)
        throw new NodeFailure("MISSING_SERVICE", `${type} needs the tool host (ctx.services.toolHost), which the server provides. Run it from the editor or an agent on the server.`, {
          service: "toolHost",
        });
      const result: ToolResult = yield* streamProgress((onProgress) => host.call(type, argumentsOf(inputs), { runId: ctx.runId, signal: ctx.signal, onProgress }));
      if (!result.ok && result.error.code === "E_MCP_TOOL_ERROR") throw new NodeFailure(result.error.code, `${type}: ${result.error.message}`, { server: entry.server, tool: entry.tool });
      if (!result.ok) return { result, ok: false };
      return { result, ok: true, text: typeof result.text === "string" ? result.text : "", ...(result.structured !== undefined ? { structured: result.structured } : {}) };
    },
  };
}

/** The builtin nodes with the configured MCP servers' tools over them (`mcp:<server>.<tool>`). */
export class McpLayeredCatalog implements NodeCatalog {
  constructor(
    private readonly builtins: NodeCatalog,
    private readonly mcp: McpManager,
  ) {}

  get(type: string): NodeDefinition | undefined {
    if (!type.startsWith("mcp:")) return this.builtins.get(type);
    const entry = this.mcp.entry(type);
    return entry ? nodeOf(entry) : undefined;
  }

  list(): NodeSpec[] {
    this.mcp.discoverUnknown();
    return [...this.builtins.list(), ...this.mcp.specs()];
  }

  suggest(type: string): string[] {
    if (!type.startsWith("mcp:")) return this.builtins.suggest(type);
    const server = type.slice(0, type.indexOf(".") + 1 || type.length);
    return this.mcp
      .specs()
      .map((s) => s.type)
      .filter((t) => t.startsWith(server))
      .slice(0, 3);
  }
}

/** The MCP tools for the tool host: a call is planned (its permission target is the node type), authorised and audited there. */
export function mcpToolSource(mcp: McpManager): ToolSource {
  return {
    get(name: string): ToolDefinition | undefined {
      const entry = mcp.entry(name);
      if (!entry) return undefined;
      return {
        name: entry.spec.type as `mcp:${string}`,
        targetKind: "command",
        plan: (raw, env) => ({
          target: entry.spec.type,
          execute: () =>
            mcp.call(entry, isRecord(raw) ? raw : {}, { ...(env.signal ? { signal: env.signal } : {}), ...(env.onProgress ? { onProgress: (progress) => env.onProgress?.({ ...progress }) } : {}) }),
        }),
      };
    },
  };
}
