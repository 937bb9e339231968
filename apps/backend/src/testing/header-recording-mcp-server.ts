import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/** A JSON-RPC request an MCP server received, with the HTTP headers it came with. */
export interface ReceivedMcpRequest {
  method: string;
  headers: IncomingHttpHeaders;
}

/**
 * A real MCP server (the official SDK, Streamable HTTP, stateless: a server per request as the SDK's example does) on a
 * free loopback port with one tool, `ping`, that answers "pong". It records each request's JSON-RPC method and headers.
 */
export async function startHeaderRecordingMcpServer(): Promise<{ url: string; received: ReceivedMcpRequest[]; stop(): Promise<void> }> {
  const received: ReceivedMcpRequest[] = [];
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const body: unknown = text === "" ? undefined : JSON.parse(text);
      const method = typeof body === "object" && body !== null && "method" in body ? String(body.method) : req.method;
      received.push({ method: method ?? "", headers: req.headers });
      const server = new McpServer({ name: "header-recorder", version: "1.0.0" });
      server.registerTool("ping", { description: "Answers pong" }, () => ({ content: [{ type: "text", text: "pong" }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => void transport.close().then(() => server.close()));
      void server.connect(transport).then(() => transport.handleRequest(req, res, body));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    received,
    stop: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}
