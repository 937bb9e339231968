import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { messageOf, type Logger } from "@weft/types";
import type { ResolvedServer } from "./mcp-config.ts";
import { GroupedStdioTransport } from "./mcp-stdio-transport.ts";

/**
 * Where a server is: `idle` until first used (stdio servers start on first use), `restarting` after it
 * crashed (a new process is being started), `failed` when it could not be started (tried again on the
 * next use or the next save of the settings).
 */
export type McpServerState = "idle" | "starting" | "ready" | "restarting" | "failed" | "stopped";

export interface McpServerStatus {
  state: McpServerState;
  transport: ResolvedServer["kind"];
  /** What went wrong last (a crash, a failed start), with what to do. */
  error?: string;
  /** How often the server crashed and was restarted since Weft started. */
  restarts: number;
  /** What the last crash looked like (kept after the restart, so it stays visible). */
  lastCrash?: string;
  /** The process id of a running stdio server. */
  pid?: number;
  tools: number;
}

export interface ConnectionEvents {
  /** The server's tools, after each listing (the first, and each `notifications/tools/list_changed`). */
  onTools(server: string, tools: Tool[]): void;
  onStatus(server: string, status: McpServerStatus): void;
}

/** Restarts in a row (no call succeeding between) after which a crashing server is left `failed`. */
const MAX_RESTARTS_IN_A_ROW = 5;
const STDERR_TAIL = 2000;

/** One configured MCP server: connects on demand, lists its tools, calls them, restarts it after a crash. */
export class McpConnection {
  private client: Client | undefined;
  private starting: Promise<Client> | undefined;
  private stopping = false;
  private state: McpServerState = "idle";
  private error: string | undefined;
  private restarts = 0;
  private restartsInARow = 0;
  private lastCrash: string | undefined;
  private toolCount = 0;
  private pid: number | undefined;
  private stderrTail = "";

  constructor(
    readonly server: ResolvedServer,
    private readonly events: ConnectionEvents,
    private readonly log: Logger,
  ) {}

  status(): McpServerStatus {
    return {
      state: this.state,
      transport: this.server.kind,
      restarts: this.restarts,
      tools: this.toolCount,
      ...(this.error !== undefined ? { error: this.error } : {}),
      ...(this.lastCrash !== undefined ? { lastCrash: this.lastCrash } : {}),
      ...(this.pid !== undefined && this.state === "ready" ? { pid: this.pid } : {}),
    };
  }

  /** The connected client, starting the server first if it is not running. */
  ensureStarted(): Promise<Client> {
    if (this.stopping) return Promise.reject(new Error(`the MCP server "${this.server.name}" is stopped`));
    if (this.client) return Promise.resolve(this.client);
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  async callTool(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    const client = await this.ensureStarted();
    const result = (await client.callTool({ name: tool, arguments: args }, undefined, signal ? { signal } : {})) as CallToolResult;
    this.restartsInARow = 0;
    return result;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.starting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    await client?.close().catch((error: unknown) => this.log.warn("closing an MCP server failed", { server: this.server.name, error: messageOf(error) }));
    this.setState("stopped");
  }

  private async start(): Promise<Client> {
    this.setState(this.state === "restarting" ? "restarting" : "starting");
    const client = new Client({ name: "weft", version: "1" }, { listChanged: { tools: { autoRefresh: false, onChanged: () => void this.refreshTools(client) } } });
    const transport = this.transport();
    client.onclose = () => this.closed(client);
    try {
      await client.connect(transport);
      this.pid = transport instanceof GroupedStdioTransport ? transport.pid : undefined;
      this.client = client;
      await this.refreshTools(client);
      this.error = undefined;
      this.setState("ready");
      return client;
    } catch (error) {
      this.client = undefined;
      await client.close().catch(() => undefined);
      this.error = `${this.describe()} could not be started: ${messageOf(error)}${this.stderrNote()}. Check its settings in Settings → MCP servers.`;
      this.setState("failed");
      throw new Error(this.error, { cause: error });
    }
  }

  private transport(): Transport {
    const server = this.server;
    switch (server.kind) {
      case "stdio": {
        // Its own process group, ended with Weft even by kill -9 (see GroupedStdioTransport).
        const transport = new GroupedStdioTransport({ command: server.command, args: server.args, env: server.env, ...(server.cwd ? { cwd: server.cwd } : {}) });
        // Kept for error messages only: a server's own chatter is not Weft's log.
        transport.stderr.on("data", (chunk: Buffer) => (this.stderrTail = (this.stderrTail + chunk.toString()).slice(-STDERR_TAIL)));
        return transport;
      }
      case "http":
        return new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } });
      default: {
        const never: never = server;
        return never;
      }
    }
  }

  private async refreshTools(client: Client): Promise<void> {
    try {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {});
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      this.toolCount = tools.length;
      this.events.onTools(this.server.name, tools);
    } catch (error) {
      this.log.warn("listing an MCP server's tools failed", { server: this.server.name, error: messageOf(error) });
    }
  }

  /** The transport closed: after `stop` that is the end; otherwise the server crashed and is restarted. */
  private closed(client: Client): void {
    if (this.stopping || this.client !== client) return;
    this.client = undefined;
    this.restarts++;
    this.restartsInARow++;
    const why = `${this.describe()} exited unexpectedly${this.stderrNote()}`;
    this.lastCrash = `${new Date().toISOString()}: ${why}`;
    if (this.restartsInARow > MAX_RESTARTS_IN_A_ROW) {
      this.error = `${why}; it crashed ${MAX_RESTARTS_IN_A_ROW} times in a row, so it is not restarted until it is next used. Check the server's command and arguments in Settings → MCP servers.`;
      this.setState("failed");
      return;
    }
    this.error = `${why}; restarted (${this.restarts} restart${this.restarts === 1 ? "" : "s"} so far)`;
    this.log.warn("an MCP server crashed; restarting it", { server: this.server.name, restarts: this.restarts });
    this.setState("restarting");
    this.ensureStarted().catch(() => undefined);
  }

  private describe(): string {
    return `the MCP server "${this.server.name}" (${this.server.kind === "stdio" ? this.server.command : this.server.url})`;
  }

  private stderrNote(): string {
    const tail = this.stderrTail.trim().split("\n").slice(-3).join(" | ");
    return tail ? ` (its last output: ${tail})` : "";
  }

  private setState(state: McpServerState): void {
    this.state = state;
    this.events.onStatus(this.server.name, this.status());
  }
}
