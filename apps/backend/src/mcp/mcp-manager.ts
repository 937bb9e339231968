import { ErrorCode, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { messageOf, type Logger, type NodeSpec, type PermissionRule, type ToolResult } from "@weft/types";
import type { ResolvedServer } from "./mcp-config.ts";
import { McpConnection, type CallOptions, type McpServerStatus } from "./mcp-connection.ts";
import { mcpNodeSpec, mcpNodeType } from "./mcp-tool-spec.ts";
import { toolResultOf } from "./mcp-result.ts";

/** One MCP tool as a node type. */
export interface McpToolEntry {
  server: string;
  /** The tool's own name, as the server knows it. */
  tool: string;
  spec: NodeSpec;
}

/** Why a listed tool is not offered as a node type; undefined when Weft can call it. */
function unsupportedBecause(tool: Tool): string | undefined {
  if (tool.execution?.taskSupport === "required") return 'it runs only as an MCP task (execution.taskSupport: "required"), which Weft does not run yet; the server\'s other tools work';
  return undefined;
}

/** A failed call as a tool result: the code says whether the call may have run (a lost connection) or did not finish in time. */
function callFailure(entry: McpToolEntry, error: unknown, connection: McpConnection, timeoutMs: number): ToolResult {
  const details = { server: entry.server, status: connection.status() };
  if (error instanceof McpError && error.code === Number(ErrorCode.RequestTimeout))
    return {
      ok: false,
      error: {
        code: "E_MCP_TIMEOUT",
        message: `${entry.spec.type} sent neither an answer nor progress for ${timeoutMs / 1000} s, so the call was cancelled. Raise the server's "timeout" (milliseconds) in Settings → MCP servers if the tool needs longer.`,
        details,
      },
    };
  if (error instanceof McpError && error.code === Number(ErrorCode.ConnectionClosed))
    return {
      ok: false,
      error: {
        code: "E_MCP_CONNECTION_LOST",
        message: `${entry.spec.type} failed: the MCP server "${entry.server}" closed the connection during the call (it may have crashed or restarted), so the call may or may not have taken effect. Its status is in Settings → MCP servers.`,
        details,
      },
    };
  return { ok: false, error: { code: "E_MCP_UNAVAILABLE", message: `${entry.spec.type} failed: ${messageOf(error)}`, details } };
}

/** Where the last known tools of each server are kept, so node types exist before a server is started. */
export interface McpToolCache {
  load(): Promise<Record<string, Tool[]>>;
  save(tools: Record<string, Tool[]>): Promise<void>;
}

/**
 * The configured MCP servers and their tools as node types. Servers start on first use (a call, or a
 * listing while their tools are unknown), are restarted after a crash, and all stop with `stop`.
 */
export class McpManager {
  private connections = new Map<string, McpConnection>();
  private toolsByServer: Record<string, Tool[]> = {};
  private entries = new Map<string, McpToolEntry>();
  private unsupported = new Map<string, { name: string; reason: string }[]>();
  private readonly listeners: (() => void)[] = [];
  private stopped = false;

  constructor(
    private readonly cache: McpToolCache,
    private readonly log: Logger,
  ) {}

  async loadCache(): Promise<void> {
    this.toolsByServer = await this.cache.load();
  }

  /** Replaces the configured servers: removed or changed ones are stopped, the rest keep running. */
  async configure(servers: readonly ResolvedServer[]): Promise<void> {
    const wanted = new Map(servers.map((s) => [s.name, s]));
    const stale = [...this.connections.values()].filter((c) => JSON.stringify(c.server) !== JSON.stringify(wanted.get(c.server.name)));
    await Promise.all(stale.map((c) => c.stop()));
    for (const connection of stale) this.connections.delete(connection.server.name);
    for (const server of servers) {
      if (!this.connections.has(server.name))
        this.connections.set(server.name, new McpConnection(server, { onTools: (name, tools) => this.toolsListed(name, tools), onStatus: () => this.changed() }, this.log));
    }
    for (const name of Object.keys(this.toolsByServer)) if (!wanted.has(name)) delete this.toolsByServer[name];
    this.rebuild();
  }

  /** Starts every configured server that is not running, and waits until each has listed its tools or failed. */
  async startAll(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.ensureStarted().catch(() => undefined)));
  }

  /** Starts, in the background, the servers whose tools are not known yet (the editor is listing node types). */
  discoverUnknown(): void {
    if (this.stopped) return;
    for (const connection of this.connections.values()) {
      if (connection.status().state === "idle" && !this.toolsByServer[connection.server.name]) connection.ensureStarted().catch(() => undefined);
    }
  }

  statuses(): Record<string, McpServerStatus> {
    return Object.fromEntries(
      [...this.connections].map(([name, c]) => {
        const unsupported = this.unsupported.get(name) ?? [];
        return [name, { ...c.status(), ...(unsupported.length > 0 ? { unsupportedTools: unsupported } : {}) }];
      }),
    );
  }

  /**
   * The owner's `autoApprove` lists as allow rules for the tool host's answering layer: like an `always`
   * answer they settle an `ask`, never a `deny`. Disabled servers approve nothing.
   */
  autoApproveRules(): PermissionRule[] {
    return [...this.connections.values()].flatMap((c) => (c.server.disabled ? [] : c.server.autoApprove.map((tool): PermissionRule => ({ action: "allow", tool: mcpNodeType(c.server.name, tool) }))));
  }

  entry(nodeType: string): McpToolEntry | undefined {
    return this.entries.get(nodeType);
  }

  specs(): NodeSpec[] {
    return [...this.entries.values()].map((e) => e.spec);
  }

  /** Called after the tools or a server's status changed. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Calls a tool, starting its server first if needed; never throws. */
  async call(entry: McpToolEntry, args: Record<string, unknown>, options: CallOptions = {}): Promise<ToolResult> {
    const signal = options.signal;
    const connection = this.connections.get(entry.server);
    if (!connection)
      return { ok: false, error: { code: "E_MCP_UNAVAILABLE", message: `The MCP server "${entry.server}" is no longer configured. Add it again in Settings → MCP servers, or remove this node.` } };
    try {
      return toolResultOf(await connection.callTool(entry.tool, args, options));
    } catch (error) {
      if (signal?.aborted) return { ok: false, error: { code: "E_ABORTED", message: `The call of ${entry.spec.type} was cancelled.` } };
      return callFailure(entry, error, connection, connection.server.timeoutMs);
    }
  }

  /** Stops every server (their processes end) and refuses further starts. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.connections.values()].map((c) => c.stop()));
  }

  private toolsListed(server: string, tools: Tool[]): void {
    if (!this.connections.has(server)) return;
    this.toolsByServer[server] = tools;
    this.rebuild();
    this.cache.save({ ...this.toolsByServer }).catch((error: unknown) => this.log.warn("saving the MCP tool list failed", { error: messageOf(error) }));
  }

  private rebuild(): void {
    const entries = new Map<string, McpToolEntry>();
    this.unsupported = new Map();
    for (const [server, tools] of Object.entries(this.toolsByServer)) {
      if (this.connections.get(server)?.server.disabled) continue;
      for (const tool of tools) {
        const reason = unsupportedBecause(tool);
        if (reason !== undefined) {
          this.unsupported.set(server, [...(this.unsupported.get(server) ?? []), { name: tool.name, reason }]);
          continue;
        }
        const spec = mcpNodeSpec(server, tool);
        if (entries.has(spec.type)) {
          this.log.warn("two MCP tools map to the same node type; the first is kept", { type: spec.type, tool: tool.name });
          continue;
        }
        entries.set(spec.type, { server, tool: tool.name, spec });
      }
    }
    this.entries = entries;
    this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
