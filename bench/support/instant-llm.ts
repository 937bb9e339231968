import { replyChunks, sseLine, type WireReply } from "../../packages/agent-runtime/src/llm/openai-wire.ts";

/** A chat message as an OpenAI-compatible request carries it: enough to see where a conversation is. */
export interface WireMessage {
  role: string;
  content: string | null;
}

/**
 * A whole streamed reply (SSE chunks of `chunkSize` characters, then `[DONE]`), written once so an
 * instant bench server only has to pick one: every millisecond measured stays the caller's own.
 */
export function streamedReply(text: string, chunkSize = Infinity): string {
  const chunks = Number.isFinite(chunkSize) ? (text.match(new RegExp(`[\\s\\S]{1,${chunkSize}}`, "g")) ?? []) : [text];
  const reply: WireReply = { contentChunks: chunks, reasoningChunks: [], toolCalls: [], finishReason: "stop", usage: { prompt_tokens: 100, completion_tokens: 20 } };
  return [...replyChunks(reply, { id: "chatcmpl-bench", model: "bench-model", created: 1_700_000_000 }, true).map((c) => sseLine(c)), sseLine("[DONE]")].join("");
}

/** A streamed reply that calls `tool` with `params` the way an `<ACTION>` agent writes a call. */
export function streamedAction(tool: string, params: Record<string, string | number>, before = "On it."): string {
  const lines = Object.entries(params).map(([k, v]) => `    <${k}>${v}</${k}>`);
  return streamedReply(`${before}\n<ACTION>\n  <${tool}>\n${lines.join("\n")}\n  </${tool}>\n</ACTION>`);
}

/** Observations the model got since the last real user message (an `<ACTION>` agent's step count in this turn). */
export function observationsSinceUser(messages: readonly WireMessage[]): number {
  let observations = 0;
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === "user" && messages[i]!.content?.startsWith("Observation:"); i -= 2) observations++;
  return observations;
}

/** A local OpenAI-compatible chat endpoint: `baseUrl` for an LLM profile, `stop()` when done. */
export interface ModelServer {
  baseUrl: string;
  stop(): Promise<void>;
}

/** Serves `answer(messages)` (a streamed reply) for every chat request, on a free port of 127.0.0.1. */
export function serveModel(answer: (messages: WireMessage[]) => string | Promise<string>): ModelServer {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const body = (await req.json()) as { messages: WireMessage[] };
      return new Response(await answer(body.messages), { headers: { "content-type": "text/event-stream" } });
    },
  });
  return { baseUrl: `http://127.0.0.1:${server.port}/v1`, stop: () => server.stop(true) };
}
