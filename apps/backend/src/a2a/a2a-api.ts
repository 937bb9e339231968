import { Elysia } from "elysia";
import { z } from "zod";
import { formatSSEErrorEvent, formatSSEEvent } from "@a2a-js/sdk";
import { DefaultExecutionEventBusManager, DefaultRequestHandler, JsonRpcTransportHandler, ServerCallContext, type User } from "@a2a-js/sdk/server";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { isLegacyJsonRpcMethod } from "@a2a-js/sdk/compat/v0_3";
import { answer, ApiError, StatusError } from "../api/errors.ts";
import { readBodyBytes } from "../api/body.ts";
import { route, type ApiRoute } from "../api/openapi-routes.ts";
import { principalOf } from "../auth/principal.ts";
import type { AgentsStorage } from "../agents/agents-storage.ts";
import { A2aExecutor, type A2aExecutorDeps } from "./a2a-executor.ts";
import { agentCard, cardJson, installationCard } from "./a2a-card.ts";
import type { SqlHandle } from "../storage/sql-handle.ts";
import { A2aTaskTable, StoredTaskStore } from "./a2a-task-store.ts";
import { inCallerTrace } from "../tracing/caller-trace.ts";

export interface A2aApiDeps extends A2aExecutorDeps {
  storage: AgentsStorage;
  /** The storage's connection: tasks are stored (a2a-task-store.ts). */
  sql: SqlHandle;
  version: string;
  /** The largest JSON-RPC body taken (the server's WEFT_MAX_BODY_BYTES, at most 1 MiB). */
  maxBodyBytes: number;
}

/** An A2A context id names a Weft conversation: a UUID as the SDKs make them, or a short id of safe characters. */
const CONTEXT_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const RpcEnvelopeSchema = z.object({ jsonrpc: z.literal("2.0"), method: z.string(), id: z.union([z.string(), z.number(), z.null()]).optional() }).loose();

/**
 * The caller, who must have come with a personal API token (A2A clients send `Authorization: Bearer`); the
 * editor's session cookie is refused, as on /v1/. The trust boundary has refused viewers and no token already.
 */
function callerOf(request: Request): User {
  const principal = principalOf(request);
  if (!principal || principal.kind === "session")
    throw new StatusError(
      401,
      "UNAUTHENTICATED",
      'A2A takes a personal API token, not the editor\'s sign-in: create one under your user menu → Personal API tokens and send it as "Authorization: Bearer <token>".',
    );
  const userId = principal.userId;
  return { isAuthenticated: true, userName: userId };
}

const originOf = (request: Request) => new URL(request.url).origin;

/** Per agent: its tasks (stored, scoped per agent and user) and its executor; the card is read afresh per request. */
interface AgentServer {
  tasks: StoredTaskStore;
  buses: DefaultExecutionEventBusManager;
  executor: A2aExecutor;
}

/** A JSON-RPC answer, or its stream as SSE (`message/stream`, `SendStreamingMessage`). */
async function rpcResponse(result: unknown, id: unknown, mapError: (error: unknown) => unknown): Promise<Response> {
  if (result === null || typeof result !== "object" || !(Symbol.asyncIterator in result)) return answer(JsonRpcAnswer, JsonRpcAnswer.parse(result));
  const iterator = (result as AsyncGenerator<unknown>)[Symbol.asyncIterator]();
  let first: IteratorResult<unknown>;
  try {
    first = await iterator.next();
  } catch (error) {
    return answer(JsonRpcAnswer, JsonRpcAnswer.parse({ jsonrpc: "2.0", id: id ?? null, error: mapError(error) }));
  }
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      try {
        if (!first.done) controller.enqueue(encoder.encode(formatSSEEvent(first.value)));
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) controller.enqueue(encoder.encode(formatSSEEvent(next.value)));
      } catch (error) {
        controller.enqueue(encoder.encode(formatSSEErrorEvent({ jsonrpc: "2.0", id: id ?? null, error: mapError(error) })));
      } finally {
        controller.close();
      }
    },
    async cancel() {
      await iterator.return(undefined);
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" } });
}

/**
 * Every agent as an A2A server (`@a2a-js/sdk`): its card at `/a2a/<agentId>/.well-known/agent-card.json`, JSON-RPC at
 * `/a2a/<agentId>` (A2A 1.0 `SendMessage`, `SendStreamingMessage`, `GetTask`, `CancelTask`, and 0.3's `message/send`,
 * `message/stream`, `tasks/get`, `tasks/cancel`), and the installation's card listing them at `/.well-known/agent-card.json`.
 * Editors and owners with a personal API token, as /v1/.
 */
export function a2aApi(deps: A2aApiDeps) {
  const servers = new Map<string, AgentServer>();
  // One table object for every agent: one Kysely on the storage's connection, one prune schedule per process.
  const taskTable = new A2aTaskTable(deps.sql);
  const serverOf = (agentId: string): AgentServer => {
    let server = servers.get(agentId);
    if (!server) {
      server = { tasks: new StoredTaskStore(taskTable, agentId), buses: new DefaultExecutionEventBusManager(), executor: new A2aExecutor(agentId, deps) };
      servers.set(agentId, server);
    }
    return server;
  };
  const agentOf = async (agentId: string) => {
    const stored = await deps.storage.agents.get(agentId);
    if (!stored) throw new ApiError("NOT_FOUND", `There is no agent "${agentId}". GET /.well-known/agent-card.json lists the agents (its skills).`, { agentId });
    return stored.document;
  };
  const maxBodyBytes = Math.min(deps.maxBodyBytes, 1024 * 1024);
  return new Elysia()
    .get("/.well-known/agent-card.json", async ({ request }) => {
      callerOf(request);
      const { items } = await deps.storage.agents.list();
      return answer(
        CardSchema,
        CardSchema.parse(
          cardJson(
            installationCard(
              items.map((stored) => stored.document),
              originOf(request),
              deps.version,
            ),
          ),
        ),
      );
    })
    .get("/a2a/:agentId/.well-known/agent-card.json", async ({ params, request }) => {
      callerOf(request);
      return answer(CardSchema, CardSchema.parse(cardJson(agentCard(await agentOf(params.agentId), originOf(request), deps.version))));
    })
    .post("/a2a/:agentId", async ({ params, request }) => {
      const user = callerOf(request);
      const card = agentCard(await agentOf(params.agentId), originOf(request), deps.version);
      const bytes = await readBodyBytes(
        request,
        maxBodyBytes,
        () => new ApiError("PAYLOAD_TOO_LARGE", `The A2A request is larger than ${maxBodyBytes} bytes; send a shorter message.`, { limit: maxBodyBytes }),
      );
      let body: unknown;
      try {
        body = JSON.parse(bytes?.toString("utf8") ?? "");
      } catch {
        return answer(JsonRpcAnswer, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "The body is not JSON: send a JSON-RPC 2.0 request." } });
      }
      const envelope = RpcEnvelopeSchema.safeParse(body);
      if (!envelope.success)
        return answer(JsonRpcAnswer, { jsonrpc: "2.0", id: null, error: { code: -32600, message: 'Not a JSON-RPC 2.0 request: it needs "jsonrpc": "2.0", a "method" and an "id".' } });
      const contextId = contextIdOf(body);
      if (contextId !== undefined && !CONTEXT_ID.test(contextId))
        return answer(JsonRpcAnswer, {
          jsonrpc: "2.0",
          id: envelope.data.id ?? null,
          error: { code: -32602, message: "message.contextId: use the contextId a previous answer gave (letters, digits, . _ : -, at most 128), or leave it out to start a conversation." },
        });
      const server = serverOf(params.agentId);
      const handler = new DefaultRequestHandler(card, server.tasks, server.executor, server.buses);
      const context = new ServerCallContext({ user, requestedVersion: request.headers.get("a2a-version") ?? undefined });
      const legacy = isLegacyJsonRpcMethod(envelope.data.method);
      const transport = legacy ? new LegacyJsonRpcTransportHandler(handler) : new JsonRpcTransportHandler(handler);
      const mapError = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError;
      // A caller's `traceparent`: the agent's steps join its trace.
      return rpcResponse(await inCallerTrace(request, () => transport.handle(body as Record<string, unknown>, context)), envelope.data.id, mapError);
    });
}

/** The contextId a send names, in either version's shape (params.message.contextId / context_id). */
function contextIdOf(body: unknown): string | undefined {
  const message = z
    .object({ params: z.object({ message: z.object({ contextId: z.string().optional(), context_id: z.string().optional() }).loose() }).loose() })
    .loose()
    .safeParse(body);
  return message.success ? (message.data.params.message.contextId ?? message.data.params.message.context_id) : undefined;
}

const CardSchema = z
  .object({ name: z.string(), description: z.string(), supportedInterfaces: z.array(z.object({ url: z.string(), protocolBinding: z.string(), protocolVersion: z.string() }).loose()).optional() })
  .loose();
const JsonRpcSchema = z.object({ jsonrpc: z.literal("2.0"), method: z.string(), id: z.union([z.string(), z.number(), z.null()]).optional(), params: z.unknown() });
/** A JSON-RPC answer: `result` (an A2A Task or Message, by the specification) or `error`. A streaming method answers text/event-stream instead. */
const JsonRpcAnswer = z.object({
  jsonrpc: z.literal("2.0"),
  // The SDK may leave it out for a request that had none: answered as null, as JSON-RPC says.
  id: z.union([z.string(), z.number(), z.null()]).default(null),
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
});

/** The A2A routes, as the OpenAPI document describes them (the JSON-RPC methods and their results are the A2A specification's). */
export const A2A_ROUTES: readonly ApiRoute[] = [
  route("GET", "/.well-known/agent-card.json", "a2a", "The installation's A2A card: its skills are the agents, each naming its own card", { response: CardSchema }),
  route("GET", "/a2a/:agentId/.well-known/agent-card.json", "a2a", "An agent's A2A card (JSON-RPC endpoint, Bearer personal token)", { response: CardSchema }),
  route(
    "POST",
    "/a2a/:agentId",
    "a2a",
    "A2A JSON-RPC: SendMessage, SendStreamingMessage (text/event-stream), GetTask, CancelTask, and A2A 0.3's message/send, message/stream, tasks/get, tasks/cancel",
    { body: JsonRpcSchema, response: JsonRpcAnswer },
  ),
];
