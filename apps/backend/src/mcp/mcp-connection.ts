import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Progress, Tool } from "@modelcontextprotocol/sdk/types.js";
import { messageOf, type Logger } from "@weft/types";
import type { ResolvedServer } from "./mcp-config.ts";
import { GroupedStdioTransport } from "./mcp-stdio-transport.ts";
import { tracedFetch } from "./traced-fetch.ts";

/**
 * Where a server is: `idle` until first used (stdio servers start on first use), `restarting` after it
 * crashed or its HTTP session was lost (a new process or session is being started), `failed` when it could
 * not be started (tried again on the next use or the next save of the settings), `disabled` when its
 * config says `disabled: true` (never started).
 */
export type McpServerState = "idle" | "starting" | "ready" | "restarting" | "failed" | "stopped" | "disabled";

export interface McpServerStatus {
  state: McpServerState;
  transport: ResolvedServer["kind"];
  /** The limit of one call in milliseconds, restarted by each progress report. */
  timeoutMs: number;
  /** What went wrong last (a crash, a failed start), with what to do. */
  error?: string;
  /** How often the server crashed and was restarted since Weft started. */
  restarts: number;
  /** What the last crash looked like (kept after the restart, so it stays visible). */
  lastCrash?: string;
  /** The process id of a running stdio server. */
  pid?: number;
  tools: number;
  /** Tools the server lists that Weft cannot call (not offered as node types), each with why. */
  unsupportedTools?: { name: string; reason: string }[];
}

export interface ConnectionEvents {
  /** The server's tools, after each listing (the first, and each `notifications/tools/list_changed`). */
  onTools(server: string, tools: Tool[]): void;
  onStatus(server: string, status: McpServerStatus): void;
}

/** Restarts in a row (no call succeeding between) after which a crashing server is left `failed`. */
const MAX_RESTARTS_IN_A_ROW = 5;
const STDERR_TAIL = 2000;

/**
 * One try to resume a dropped Streamable HTTP stream, soon: a server that is still there answers at once,
 * and one that is gone must fail the calls waiting on it now rather than after the call's time limit.
 */
const HTTP_RECONNECTION = { maxRetries: 1, initialReconnectionDelay: 200, maxReconnectionDelay: 2000, reconnectionDelayGrowFactor: 2 };

/** What the SDK reports (as transport errors, not codes) when a stream of a Streamable HTTP or SSE server ended and could not be resumed. */
const STREAM_LOST = /Failed to reconnect SSE stream|Maximum reconnection attempts|SSE error/;

/**
 * A Streamable HTTP answer saying the session is unknown: 404 per the spec, 400 "No valid session ID" from
 * servers built on the SDK's examples. The server did not run the request, so it can be sent again in a new session.
 */
function sessionLost(error: unknown): boolean {
  return error instanceof StreamableHTTPError && (error.code === 404 || (error.code === 400 && /session/i.test(error.message)));
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Told of each progress notification the server sends about the call. */
  onProgress?: (progress: Progress) => void;
}

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
  ) {
    if (server.disabled) this.state = "disabled";
  }

  status(): McpServerStatus {
    return {
      state: this.state,
      transport: this.server.kind,
      timeoutMs: this.server.timeoutMs,
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
    if (this.server.disabled) return Promise.reject(new Error(`the MCP server "${this.server.name}" is disabled ("disabled": true in Settings → MCP servers); remove that key to start it`));
    if (this.client) return Promise.resolve(this.client);
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  /**
   * Calls a tool with the server's time limit, restarted by each progress report (an `onprogress` makes the
   * SDK send a progressToken, so every call asks for progress). A lost Streamable HTTP session (the server
   * restarted) is replaced by a new one and the call sent once more: the server refused it unrun.
   */
  async callTool(tool: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    const attempt = async (client: Client) =>
      (await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: this.server.timeoutMs,
        resetTimeoutOnProgress: true,
        onprogress: (progress) => options.onProgress?.(progress),
        ...(options.signal ? { signal: options.signal } : {}),
      })) as CallToolResult;
    const client = await this.ensureStarted();
    let result: CallToolResult;
    try {
      result = await attempt(client);
    } catch (error) {
      if (!sessionLost(error)) throw error;
      await this.lost(client, `its session was no longer known (${messageOf(error)}): the server restarted`);
      result = await attempt(await this.ensureStarted());
    }
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
    client.onclose = () => this.closed(client, "exited unexpectedly");
    // A remote server's stream that ended for good: the calls waiting on it fail now, and a new session starts.
    client.onerror = (error) => {
      if (STREAM_LOST.test(messageOf(error))) void this.lost(client, `closed the connection (${messageOf(error)})`);
    };
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
        return new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers }, reconnectionOptions: HTTP_RECONNECTION, fetch: tracedFetch });
      case "sse":
        // The SDK sends these headers on the event stream and on each POST.
        return new SSEClientTransport(new URL(server.url), { requestInit: { headers: server.headers }, fetch: tracedFetch });
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

  /** A remote server dropped the connection or its session: closing the client fails its pending calls at once and starts a new session. */
  private async lost(client: Client, why: string): Promise<void> {
    if (this.client !== client) return;
    this.closed(client, why);
    await client.close().catch(() => undefined);
  }

  /** The transport closed: after `stop` that is the end; otherwise the server crashed (or its session was lost) and is restarted. */
  private closed(client: Client, what: string): void {
    if (this.stopping || this.client !== client) return;
    this.client = undefined;
    this.restarts++;
    this.restartsInARow++;
    const why = `${this.describe()} ${what}${this.stderrNote()}`;
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
