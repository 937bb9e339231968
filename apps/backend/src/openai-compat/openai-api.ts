import { Elysia } from "elysia";
import { apiErrorOf, jsonResponse } from "../api/errors.ts";
import { readBody } from "../api/body.ts";
import { route, type ApiRoute } from "../api/openapi-routes.ts";
import { principalOf } from "../auth/principal.ts";
import type { AgentsStorage } from "../agents/agents-storage.ts";
import { ServiceError } from "../service-error.ts";
import type { AgentCompletions, AgentOutcome, AgentTurn } from "./agent-completions.ts";
import { CallerSlots } from "./caller-slots.ts";
import { OpenAiRefusal, openAiErrorBody } from "./openai-errors.ts";
import { inCallerTrace } from "../tracing/caller-trace.ts";
import {
  ChatCompletionRequestSchema,
  ChatCompletionSchema,
  chunk,
  completion,
  completionId,
  MAX_MESSAGE_CHARS,
  ModelListSchema,
  ModelSchema,
  OpenAiErrorBodySchema,
  textOf,
  usageChunk,
  type ChatCompletionRequest,
  type CompletionUsage,
  type FinishReason,
} from "./openai-wire.ts";

export interface OpenAiApiDeps {
  completions: AgentCompletions;
  storage: AgentsStorage;
  maxBodyBytes: number;
  /** How long a request waits for the agent's answer before its loop is cancelled (default 10 minutes, the OpenAI SDKs' own timeout). */
  timeoutMs?: number;
  /** How often a stream sends an SSE comment while the agent works, so proxies keep it open (default 15 s). */
  keepAliveMs?: number;
  /** The tokens a conversation's LLM calls used (recorded before each call's answer returns, so complete once the loop ended). */
  usageOf(conversationId: string): Promise<CompletionUsage | undefined>;
  /** How many chat completions one user may have in flight at once in this process (WEFT_V1_CONCURRENCY, default 8); more are refused with 429. */
  concurrentPerUser?: number;
}

/** Where the caller's system and developer messages go: first in the history, as a user message, under the agent's own instructions. */
const CALLER_INSTRUCTIONS = "Instructions from the API caller's system message (your own instructions come first):";

/**
 * The request's user, who must have come with a token: this endpoint is for programs (OpenAI clients), which
 * send `Authorization: Bearer`; a browser's session cookie is not taken here.
 */
function callerOf(request: Request): string {
  const principal = principalOf(request);
  if (!principal || principal.kind === "session") {
    throw new OpenAiRefusal(
      401,
      "invalid_api_key",
      "The OpenAI-compatible endpoint takes a personal API token, not the editor's sign-in: create one under your user menu → Personal API tokens and send it as \"Authorization: Bearer <token>\" (the OpenAI SDKs' apiKey).",
    );
  }
  return principal.userId;
}

function refused(param: string, message: string): OpenAiRefusal {
  return new OpenAiRefusal(400, "invalid_value", `${param}: ${message}`, {
    issues: [
      {
        path: param
          .split(/\.|\[|\]/)
          .filter(Boolean)
          .map((p) => (/^\d+$/.test(p) ? Number(p) : p)),
        message,
      },
    ],
  });
}

/** The request's messages as a turn: the last one is the user's message, the ones before it the history. */
function turnOf(body: ChatCompletionRequest, userId: string): AgentTurn {
  const texts = body.messages.map((m, i) => {
    // Refused by the schema already; the check narrows the type.
    if (!("content" in m)) throw refused(`messages[${i}].role`, "tool and function messages are not supported");
    const text = textOf(m.content);
    if (text.length > MAX_MESSAGE_CHARS) throw refused(`messages[${i}].content`, `is ${text.length} characters long; at most ${MAX_MESSAGE_CHARS} are allowed per message`);
    return { role: m.role, text };
  });
  const last = texts.at(-1);
  if (last?.role !== "user") throw refused(`messages[${texts.length - 1}].role`, 'the last message must be the user\'s (role "user"): it is the turn the agent answers');
  if (last.text.trim() === "") throw refused(`messages[${texts.length - 1}].content`, "is empty; send the user's message");
  const instructions = texts
    .filter((m) => m.role === "system" || m.role === "developer")
    .map((m) => m.text.trim())
    .filter((t) => t !== "");
  const history = texts.slice(0, -1).flatMap((m) => (m.role === "user" || m.role === "assistant" ? [{ role: m.role, content: m.text }] : []));
  return {
    agentId: body.model,
    history: [...(instructions.length > 0 ? [{ role: "user" as const, content: `${CALLER_INSTRUCTIONS}\n\n${instructions.join("\n\n")}` }] : []), ...history],
    message: last.text,
    userId,
  };
}

/** The answer an outcome gives, or the refusal when the loop stopped without one (never retried: a retry would run the agent again). */
function answerOf(outcome: AgentOutcome, conversationId: string): { content: string; finishReason: FinishReason } {
  switch (outcome.status) {
    case "completed":
    case "waiting_user":
      // A question to the user is the agent's answer for this turn: the client's next message answers it.
      return { content: outcome.text, finishReason: "stop" };
    case "cut_off":
      return { content: outcome.text, finishReason: "length" };
    case "waiting_approval":
      // Not a server error: the loop is stored, waiting for a person; their decision continues the same conversation.
      throw new OpenAiRefusal(
        409,
        "agent_waiting_approval",
        `The agent is waiting for a person's approval${outcome.text ? ` (${outcome.text})` : ""}. Decide it in Weft's Approvals inbox or with POST /api/approvals/:id/decision (GET /api/approvals?runId=${conversationId} lists it); the agent then continues conversation ${conversationId}: GET /api/conversations/${conversationId} shows its answer.`,
        { conversationId },
      );
    default:
      throw new OpenAiRefusal(
        500,
        `agent_${outcome.status}`,
        `The agent stopped without an answer (${outcome.status})${outcome.text ? `: ${outcome.text}` : "."} Its steps: GET /api/conversations/${conversationId}.`,
        {
          conversationId,
        },
      );
  }
}

/** A refusal's body and headers as the OpenAI SDKs read them; `x-should-retry: false` where repeating would run the agent again. */
function noRetry(error: unknown): Response {
  const http = error instanceof OpenAiRefusal ? error : error instanceof ServiceError ? apiErrorOf(error) : undefined;
  if (!http) throw error;
  const response = http.httpResponse();
  const headers = new Headers(response.headers);
  headers.set("x-should-retry", "false");
  return new Response(JSON.stringify(openAiErrorBody(http)), { status: http.status, headers });
}

const encoder = new TextEncoder();
const sse = (data: unknown) => encoder.encode(`data: ${JSON.stringify(data)}\n\n`);

/** `stream: true`: the role at once, SSE comments while the agent works, then its answer, the finish and `[DONE]`; the caller's slot is freed when the agent's loop has ended. */
function streamed(deps: OpenAiApiDeps, conversationId: string, model: string, created: number, timeoutMs: number, includeUsage: boolean, free: () => void): Response {
  const id = completionId(conversationId);
  const gone = new AbortController();
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(sse(chunk(id, model, created, { role: "assistant", content: "" })));
      keepAlive = setInterval(() => controller.enqueue(encoder.encode(": the agent is working\n\n")), deps.keepAliveMs ?? 15_000);
      void deps.completions
        .wait(conversationId, timeoutMs, gone.signal)
        .then(async (outcome) => {
          const { content, finishReason } = answerOf(outcome, conversationId);
          if (content !== "") controller.enqueue(sse(chunk(id, model, created, { content })));
          controller.enqueue(sse(chunk(id, model, created, {}, finishReason)));
          const usage = includeUsage ? await deps.usageOf(conversationId) : undefined;
          if (usage && !gone.signal.aborted) controller.enqueue(sse(usageChunk(id, model, created, usage)));
          if (!gone.signal.aborted) controller.enqueue(encoder.encode("data: [DONE]\n\n"));
        })
        .catch((error: unknown) => {
          // Headers are sent: the failure goes in the stream, as OpenAI's does (the SDKs raise it as an APIError).
          if (gone.signal.aborted) return;
          const http =
            error instanceof OpenAiRefusal
              ? error
              : error instanceof ServiceError
                ? apiErrorOf(error)
                : new OpenAiRefusal(500, "internal", "The server failed while the agent worked; the server log has the details.");
          controller.enqueue(sse(openAiErrorBody(http)));
        })
        .finally(() => {
          clearInterval(keepAlive);
          free();
          if (!gone.signal.aborted) controller.close();
        });
    },
    cancel() {
      clearInterval(keepAlive);
      gone.abort();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-weft-conversation-id": conversationId },
  });
}

/**
 * `GET /v1/models`, `GET /v1/models/:id` and `POST /v1/chat/completions`: every agent as an OpenAI model, for the
 * OpenAI SDKs and chat UIs that speak the protocol. Editors and owners only, as POST /api/agents/:id/messages.
 */
export function openAiApi(deps: OpenAiApiDeps) {
  const timeoutMs = deps.timeoutMs ?? 600_000;
  const slots = new CallerSlots(deps.concurrentPerUser ?? 8);
  return new Elysia()
    .get("/v1/models", async ({ request }) => {
      callerOf(request);
      const { items } = await deps.storage.agents.list();
      const data = items.map((stored) => ({ id: stored.document.id, object: "model" as const, created: Math.floor(stored.createdAt / 1000), owned_by: "weft" }));
      return jsonResponse({ object: "list", data });
    })
    .get("/v1/models/:id", async ({ params, request }) => {
      callerOf(request);
      const stored = await deps.storage.agents.get(params.id);
      if (!stored) throw new OpenAiRefusal(404, "model_not_found", `There is no agent "${params.id}". GET /v1/models lists the agents you may use.`);
      return jsonResponse({ id: stored.document.id, object: "model", created: Math.floor(stored.createdAt / 1000), owned_by: "weft" });
    })
    .post("/v1/chat/completions", async ({ request }) => {
      const userId = callerOf(request);
      const body = await readBody(request, ChatCompletionRequestSchema, deps.maxBodyBytes);
      const turn = turnOf(body, userId);
      if (!(await deps.storage.agents.get(turn.agentId)))
        throw new OpenAiRefusal(404, "model_not_found", `There is no agent "${turn.agentId}". GET /v1/models lists the agents you may use.`, { agentId: turn.agentId });
      const free = slots.take(userId);
      let conversationId: string;
      try {
        // A caller's `traceparent`: the agent's steps join its trace.
        ({ conversationId } = await inCallerTrace(request, () => deps.completions.start(turn)));
      } catch (error) {
        free();
        throw error;
      }
      const created = Math.floor(Date.now() / 1000);
      if (body.stream === true) return streamed(deps, conversationId, turn.agentId, created, timeoutMs, body.stream_options?.include_usage === true, free);
      try {
        const outcome = await deps.completions.wait(conversationId, timeoutMs, request.signal);
        const { content, finishReason } = answerOf(outcome, conversationId);
        const usage = await deps.usageOf(conversationId);
        return jsonResponse(completion(completionId(conversationId), turn.agentId, created, content, finishReason, usage), 200, { "x-weft-conversation-id": conversationId });
      } catch (error) {
        return noRetry(error);
      } finally {
        free();
      }
    });
}

/** The OpenAI-compatible routes, as the OpenAPI document describes them (errors in OpenAI's shape). */
export const OPENAI_ROUTES: readonly ApiRoute[] = [
  route("GET", "/v1/models", "openai", "The agents, as OpenAI models", { response: ModelListSchema, error: OpenAiErrorBodySchema }),
  route("GET", "/v1/models/:id", "openai", "One agent, as an OpenAI model", { response: ModelSchema, error: OpenAiErrorBodySchema }),
  route("POST", "/v1/chat/completions", "openai", "An agent's answer to a conversation (OpenAI Chat Completions; text/event-stream with stream: true)", {
    body: ChatCompletionRequestSchema,
    response: ChatCompletionSchema,
    error: OpenAiErrorBodySchema,
  }),
];
