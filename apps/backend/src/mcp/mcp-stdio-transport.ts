import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import type { Socket } from "node:net";
import { PassThrough } from "node:stream";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export interface StdioServerCommand {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd?: string;
}

/**
 * How the server is started, by `/bin/sh -c` with the server's command as "$@". Descriptor 3 is a
 * lifeline whose other end only Weft holds: a watcher blocks reading it, and the server is started
 * without it. The kernel closes Weft's end however Weft ends — `kill -9` included, where no handler
 * runs and a parent-death signal would reach the direct child only — and the watcher, reading
 * end-of-file, kills the whole process group: the server and everything it started (npx → node → …),
 * whether or not they heed stdin's end or SIGTERM. The group is the server's own (spawned detached).
 */
const SUPERVISOR = `(read -r _ <&3; kill -s KILL 0) </dev/null >/dev/null 2>&1 &
exec "$@" 3<&-`;

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** How long `close` waits for the server to leave after stdin's end, and after SIGTERM. */
const CLOSE_GRACE_MS = 2000;

/**
 * The SDK's stdio client transport, with the server in a process group of its own that ends with
 * the server, with `close`, and with Weft (see SUPERVISOR). The SDK's own transport cannot hand the
 * child a lifeline descriptor or a group of its own, hence this one.
 */
export class GroupedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  private lifeline: Socket | undefined;
  private readonly readBuffer = new ReadBuffer();
  /** Messages held for a later turn, in order (see `deliver`). */
  private held: JSONRPCMessage[] = [];
  /** A notification was delivered in this turn: a response read in the same turn waits for the next. */
  private notifiedThisTurn = false;

  constructor(private readonly server: StdioServerCommand) {}

  /** The server's process id (and its group's), once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The server's stderr; there from the start, so nothing it writes early is missed. */
  readonly stderr = new PassThrough();

  start(): Promise<void> {
    if (this.child) throw new Error("this MCP stdio transport is already started");
    const cwd = this.server.cwd;
    // Checked here: a missing folder would otherwise be reported as /bin/sh not found.
    if (cwd !== undefined && !fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) return Promise.reject(new Error(`its working folder ${cwd} is not a folder that exists`));
    return new Promise((resolve, reject) => {
      const child = spawn("/bin/sh", ["-c", SUPERVISOR, "weft-mcp", this.server.command, ...this.server.args], {
        env: { ...getDefaultEnvironment(), ...this.server.env },
        stdio: ["pipe", "pipe", "pipe", "pipe"],
        detached: true,
        shell: false,
        ...(cwd !== undefined ? { cwd } : {}),
      });
      this.child = child;
      child.on("error", (error) => {
        // Not started at all: nothing for `close` to wait for.
        if (child.pid === undefined) this.child = undefined;
        reject(error);
        this.onerror?.(error);
      });
      this.lifeline = (child.stdio[3] as Socket | null) ?? undefined;
      // The watcher never writes; an error on Weft's end only means the group is already gone.
      this.lifeline?.on("error", () => undefined);
      child.on("spawn", () => resolve());
      // The server is gone: cutting the lifeline ends whatever it left running in its group.
      child.on("exit", () => this.lifeline?.destroy());
      child.on("close", () => {
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stderr?.pipe(this.stderr);
      child.stdout?.on("data", (chunk: Buffer) => this.received(chunk));
    });
  }

  /** As the SDK's transport: a line that is no message is reported and skipped; an overflowing buffer closes. */
  private received(chunk: Buffer): void {
    try {
      this.readBuffer.append(chunk);
    } catch (error) {
      this.onerror?.(asError(error));
      void this.close();
      return;
    }
    this.notifiedThisTurn = false;
    for (;;) {
      try {
        const message = this.readBuffer.readMessage();
        if (message === null) return;
        this.deliver(message);
      } catch (error) {
        this.onerror?.(asError(error));
      }
    }
  }

  /**
   * Hands a message on, in the order read. The SDK's client runs a notification's handler a microtask after it is
   * handed over, but settles a response at once and forgets the call's progress handler: a call's last progress
   * report read together with its answer (a server reports the last step, then answers) was dropped. A response after
   * a notification in the same turn, and whatever follows it, is handed on in the next turn instead.
   */
  private deliver(message: JSONRPCMessage): void {
    if (this.held.length > 0 || (this.notifiedThisTurn && "id" in message && !("method" in message))) {
      if (this.held.push(message) === 1) setImmediate(() => this.release());
      return;
    }
    if ("method" in message && !("id" in message)) this.notifiedThisTurn = true;
    this.onmessage?.(message);
  }

  private release(): void {
    const held = this.held;
    this.held = [];
    this.notifiedThisTurn = false;
    for (const message of held) this.deliver(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin) return Promise.reject(new Error("Not connected"));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Ends stdin, then SIGTERM to the server, then SIGKILL to its whole group, each after a grace period. */
  async close(): Promise<void> {
    const child = this.child;
    if (child) {
      const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
      const settle = () => Promise.race([closed, new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref())]);
      child.stdin?.end();
      await settle();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await settle();
      }
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // The group is already gone.
        }
      }
    }
    this.readBuffer.clear();
  }
}
