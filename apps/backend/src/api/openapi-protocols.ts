/**
 * The operations outside /api/ that speak another protocol: `/mcp` (MCP's Streamable HTTP), `/ws`
 * (the editor's WebSocket) and `/metrics` (Prometheus' text format). Their messages are the other
 * protocol's, so they are described here by hand, as OpenAPI can: the HTTP exchange, its media types
 * and statuses, with the protocol's own documents named.
 */

type Json = { [key: string]: unknown };

const error = { $ref: "#/components/responses/Error" };
const unauthenticated = {
  description: 'No valid credential. Carries `WWW-Authenticate: Bearer realm="weft"`: send a token (Weft is no OAuth server).',
  headers: { "WWW-Authenticate": { schema: { type: "string", const: 'Bearer realm="weft"' } } },
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
};
const jsonRpcMessage = {
  type: "object",
  description: "A JSON-RPC 2.0 message of the Model Context Protocol (https://modelcontextprotocol.io/specification/2025-11-25): a request, a notification or a response.",
  properties: { jsonrpc: { const: "2.0" }, id: { type: ["string", "integer"] }, method: { type: "string" }, params: { type: "object" }, result: { type: "object" }, error: { type: "object" } },
  required: ["jsonrpc"],
};
const noSession = { description: "No `Mcp-Session-Id` header: without a session only POST is answered (`Allow: POST`).", content: { "application/json": { schema: { type: "object" } } } };
const sessionHeader = {
  name: "Mcp-Session-Id",
  in: "header",
  required: false,
  description: "The session an initialize answered with (only its user's requests reach it).",
  schema: { type: "string" },
};
const sessionNotFound = { description: "The session ended or was never this user's: send initialize for a new one.", content: { "application/json": { schema: jsonRpcMessage } } };

export const PROTOCOL_PATHS: Record<string, Json> = {
  "/mcp": {
    post: {
      operationId: "postMcp",
      tags: ["mcp"],
      summary:
        "Weft's MCP server (Streamable HTTP): skills as tools (progress, image/file content, approvals by elicitation), workflows and runs as resources (subscriptions), agents' personas as prompts",
      description:
        "Send MCP JSON-RPC messages with `Accept: application/json, text/event-stream`. A request's answer streams as Server-Sent Events (progress notifications for each node of the skill's run, then the result). The token may also come as `?token=` on this path alone, for clients configured with a URL only.",
      parameters: [
        { name: "token", in: "query", required: false, description: "The access token or a personal API token, for MCP clients that cannot send headers.", schema: { type: "string" } },
        sessionHeader,
      ],
      requestBody: { required: true, content: { "application/json": { schema: jsonRpcMessage } } },
      responses: {
        "200": {
          description: "The answer to a request: one JSON-RPC response, or an SSE stream of notifications ending with it.",
          content: { "text/event-stream": { schema: { type: "string", description: "`event: message` / `data: <JSON-RPC message>` frames" } }, "application/json": { schema: jsonRpcMessage } },
        },
        "202": { description: "A notification or a response was accepted (no answer body)." },
        "401": unauthenticated,
        "404": sessionNotFound,
        default: error,
      },
    },
    get: {
      operationId: "getMcp",
      tags: ["mcp"],
      summary: "A session's stream of the server's own messages (resource updates)",
      parameters: [sessionHeader],
      responses: {
        "200": { description: "Server-Sent Events of the session.", content: { "text/event-stream": { schema: { type: "string" } } } },
        "404": sessionNotFound,
        "405": noSession,
        "401": unauthenticated,
      },
    },
    delete: {
      operationId: "deleteMcp",
      tags: ["mcp"],
      summary: "Ends a session",
      parameters: [sessionHeader],
      responses: { "200": { description: "The session ended." }, "404": sessionNotFound, "405": noSession, "401": unauthenticated },
    },
  },
  "/ws": {
    get: {
      operationId: "getWs",
      tags: ["events"],
      summary: "The WebSocket of run, conversation and scene events (docs/api.md, WebSocket)",
      description:
        "Upgrade with `Connection: Upgrade` and `Upgrade: websocket`. Client messages subscribe to streams by id and resume after a seq; the server sends each stream's events in seq order. A credential is needed (a viewer at least).",
      responses: { "101": { description: "Switching Protocols: the WebSocket is open." }, "401": unauthenticated, default: error },
    },
  },
  "/metrics": {
    get: {
      operationId: "getMetrics",
      tags: ["health"],
      summary: "Prometheus metrics (text exposition format 0.0.4; docs/deploy.md, Metrics)",
      responses: {
        "200": { description: "The exposition text.", content: { "text/plain; version=0.0.4; charset=utf-8": { schema: { type: "string" } } } },
        "401": unauthenticated,
        default: error,
      },
    },
  },
};
