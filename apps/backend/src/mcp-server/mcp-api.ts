import { Elysia } from "elysia";
import { ErrorCode, isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { jsonResponse } from "../api/errors.ts";
import { readJsonBody } from "../api/body.ts";
import { MCP_PATH } from "../auth/trust-boundary.ts";
import { principalOf } from "../auth/principal.ts";
import { authInfoOf } from "./mcp-caller.ts";
import { McpSessions, mcpTransport } from "./mcp-sessions.ts";
import { sessionSubscriptions, skillServer, type SkillServerDeps } from "./skill-server.ts";

export interface McpApiDeps extends SkillServerDeps {
  maxBodyBytes: number;
}

function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return jsonResponse({ jsonrpc: "2.0", error: { code, message }, id: null }, status, headers);
}

/**
 * Weft's MCP server over Streamable HTTP at `/mcp`. The trust boundary has already checked Host,
 * Origin and the credential. An `initialize` opens a session (`Mcp-Session-Id`) the client sends
 * back on each later POST, on the GET that streams the server's own messages (resource updates)
 * and on the DELETE that ends it. A POST without a session id that is not an `initialize` is
 * answered on its own (a fresh stateless server), as before sessions existed. Each POST's answer
 * streams as SSE, which the response hooks leave untouched (they redact and compress JSON only).
 */
export function mcpApi(deps: McpApiDeps) {
  const sessions = new McpSessions();
  return new Elysia()
    .onStop(() => sessions.closeAll())
    .all(MCP_PATH, async ({ request }) => {
      const principal = principalOf(request);
      if (!principal) return rpcError(401, ErrorCode.InvalidRequest, "Send a Weft token (Authorization: Bearer …).", { "www-authenticate": 'Bearer realm="weft"' });
      const authInfo = authInfoOf(principal);
      const sessionId = request.headers.get("mcp-session-id");
      if (sessionId !== null) {
        const session = sessions.find(sessionId, principal.userId);
        // The spec's answer for an unknown or ended session: the client starts a new one.
        if (!session) return rpcError(404, ErrorCode.InvalidRequest, "Session not found: it ended or never existed; send initialize for a new one.");
        const parsedBody = request.method === "POST" ? await readJsonBody(request, deps.maxBodyBytes) : undefined;
        return session.transport.handleRequest(request, { parsedBody, authInfo });
      }
      if (request.method !== "POST") {
        return rpcError(405, ErrorCode.ConnectionClosed, `${request.method} /mcp needs the Mcp-Session-Id an initialize answered with; without a session, send JSON-RPC messages with POST.`, {
          allow: "POST",
        });
      }
      // Read here rather than by the transport: the API's size, depth and key checks apply to MCP too.
      const body = await readJsonBody(request, deps.maxBodyBytes);
      if (isInitializeRequest(body)) {
        const server = skillServer(deps, sessionSubscriptions(deps));
        const transport = sessions.open(principal.userId, server);
        await server.connect(transport);
        return transport.handleRequest(request, { parsedBody: body, authInfo });
      }
      const server = skillServer(deps);
      const transport = mcpTransport({ sessionIdGenerator: undefined });
      await server.connect(transport);
      request.signal.addEventListener("abort", () => void server.close(), { once: true });
      return transport.handleRequest(request, { parsedBody: body, authInfo });
    });
}
