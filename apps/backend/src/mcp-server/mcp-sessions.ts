import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { withoutDoubledPrefix } from "./error-messages.ts";

/** Sessions held at once in this process; past it the idlest is closed for a new one. */
export const MAX_SESSIONS = 1_000;
/** A session unused this long is closed when room is needed or at the next session's start. */
export const SESSION_IDLE_MS = 30 * 60_000;

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  /** The user who opened it: only their requests reach it. */
  userId: string;
  lastUsed: number;
}

/** A transport whose outgoing errors read "MCP error <code>: …" once (the SDK's McpError writes it into the message, and the client adds it again). */
export function mcpTransport(options: ConstructorParameters<typeof WebStandardStreamableHTTPServerTransport>[0]): WebStandardStreamableHTTPServerTransport {
  const transport = new WebStandardStreamableHTTPServerTransport(options);
  const send = transport.send.bind(transport);
  transport.send = (message, sendOptions) => send(withoutDoubledPrefix(message), sendOptions);
  return transport;
}

/**
 * The MCP sessions of this process (`Mcp-Session-Id`), each with its own `Server`: a session is
 * what lets the server ask the client (elicitation, sampling) and tell it of a subscribed
 * resource's change. A session belongs to the user who opened it; anyone else's request naming it
 * finds no session (404, as for an unknown id), so ids leak nothing.
 */
export class McpSessions {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly now: () => number = Date.now) {}

  get size(): number {
    return this.sessions.size;
  }

  /** The session with this id, when it is this user's. */
  find(sessionId: string, userId: string): Session | undefined {
    const session = this.sessions.get(sessionId);
    if (!session || session.userId !== userId) return undefined;
    session.lastUsed = this.now();
    return session;
  }

  /** A transport and server for a new session; the session is kept once the transport has given it an id (on `initialize`). */
  open(userId: string, server: Server): WebStandardStreamableHTTPServerTransport {
    this.closeIdle();
    const transport = mcpTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { transport, server, userId, lastUsed: this.now() });
      },
      onsessionclosed: (id) => {
        this.drop(id);
      },
    });
    return transport;
  }

  closeAll(): void {
    for (const id of [...this.sessions.keys()]) this.drop(id);
  }

  private drop(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    void session.server.close();
  }

  private closeIdle(): void {
    const now = this.now();
    for (const [id, s] of this.sessions) if (now - s.lastUsed > SESSION_IDLE_MS) this.drop(id);
    while (this.sessions.size >= MAX_SESSIONS) {
      const idlest = [...this.sessions.entries()].reduce((a, b) => (b[1].lastUsed < a[1].lastUsed ? b : a));
      this.drop(idlest[0]);
    }
  }
}
