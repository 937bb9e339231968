import { Elysia } from "elysia";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type ServerNotification, type ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { messageOf, type Logger } from "@weft/types";
import type { EventHub } from "../events/event-hub.ts";
import type { RunService } from "../runs/run-service.ts";
import type { RunsStorage } from "../runs/runs-storage.ts";
import { HttpError, jsonResponse } from "../api/errors.ts";
import { ServiceError } from "../service-error.ts";
import { readJsonBody } from "../api/body.ts";
import { MCP_PATH } from "../auth/trust-boundary.ts";
import { actorOf } from "../auth/principal.ts";
import { findSkill, refusedResult, skillTools, toolResult } from "./skill-tools.ts";
import { runEnding } from "../runs/run-ending.ts";
import { RunProgress } from "./run-progress.ts";
import { withoutDoubledPrefix } from "./error-messages.ts";

type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface McpApiDeps {
  storage: RunsStorage;
  runs: RunService;
  hub: EventHub;
  version: string;
  maxBodyBytes: number;
  log: Logger;
}

/** Starts the skill as a Weft run (recorded in the run history like any other) and answers with how it ended. */
async function callSkill(deps: McpApiDeps, name: string, inputs: Record<string, unknown>, extra: CallExtra, createdBy: string | undefined): Promise<CallToolResult> {
  if (!(await findSkill(deps.storage, name))) {
    throw new McpError(ErrorCode.InvalidParams, `There is no skill "${name}" in Weft; tools/list names the skills (workflows with workflow-input/-output nodes).`);
  }
  let runId: string;
  try {
    ({ runId } = await deps.runs.start({ workflowId: name, inputs, createdBy }));
  } catch (error) {
    if (error instanceof HttpError || error instanceof ServiceError) return refusedResult(error.code, deps.storage.redactor.text(error.message));
    throw error;
  }
  // The client cancelled the call or went away: the run stops too, and ends as cancelled in the history.
  const cancel = () => void deps.runs.cancel(runId).catch((error: unknown) => deps.log.warn("cancelling an MCP call's run failed", { runId, error: messageOf(error) }));
  extra.signal.addEventListener("abort", cancel, { once: true });
  const progressToken = extra._meta?.progressToken;
  const progress = progressToken === undefined ? undefined : new RunProgress(deps.storage, deps.hub, runId, progressToken, extra.sendNotification, deps.log);
  try {
    // Tells the client at once which run to look for in Weft (and starts the answer's stream), then what ran before the subscription.
    await progress?.started();
    await progress?.flush();
    const ending = await runEnding(deps.hub, deps.storage, runId);
    // Every node's progress reaches the client before the answer that ends the call.
    await progress?.flush();
    return toolResult(runId, ending);
  } finally {
    progress?.close();
    extra.signal.removeEventListener("abort", cancel);
  }
}

/** An MCP server for one request: stateless, as each call stands alone and tools/list is read afresh. */
function skillServer(deps: McpApiDeps, createdBy: string | undefined): Server {
  const server = new Server({ name: "weft", title: "Weft skills", version: deps.version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await skillTools(deps.storage) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => callSkill(deps, request.params.name, request.params.arguments ?? {}, extra, createdBy));
  return server;
}

/**
 * Weft's skills over MCP's Streamable HTTP at `/mcp`. The trust boundary has already checked Host,
 * Origin and the credential. Stateless: no session, so no server-initiated GET stream and nothing
 * to DELETE (405, as the transport spec allows); each POST's answer streams as SSE, which the
 * response hooks leave untouched (they redact and compress JSON only).
 */
export function mcpApi(deps: McpApiDeps) {
  return new Elysia().all(MCP_PATH, async ({ request }) => {
    if (request.method !== "POST") {
      return jsonResponse(
        { jsonrpc: "2.0", error: { code: ErrorCode.ConnectionClosed, message: `Weft's MCP endpoint is stateless: send JSON-RPC messages with POST; ${request.method} is not supported.` }, id: null },
        405,
        { allow: "POST" },
      );
    }
    // Read here rather than by the transport: the API's size, depth and key checks apply to MCP too.
    const body = await readJsonBody(request, deps.maxBodyBytes);
    // Runs the MCP client starts name the user its token belongs to.
    const server = skillServer(deps, actorOf(request));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    // The SDK sends a thrown McpError's message, which already reads "MCP error <code>: …", and the client prefixes it again.
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send(withoutDoubledPrefix(message), options);
    await server.connect(transport);
    request.signal.addEventListener("abort", () => void server.close(), { once: true });
    return transport.handleRequest(request, { parsedBody: body });
  });
}
