/**
 * The OpenAI Chat Completions wire format as a server writes it: the demo LLM and the scripted
 * test server both answer through these, so what they send is exactly what a real provider sends.
 */

export interface WireToolCall {
  id: string;
  name: string;
  /** The JSON arguments, split the way they are streamed; joined for a non-streaming answer. */
  argumentChunks: string[];
}

export interface WireReply {
  contentChunks: string[];
  reasoningChunks: string[];
  toolCalls: WireToolCall[];
  finishReason: string;
  /** null: the server reports no usage (as some local servers do), streamed or not. */
  usage: WireUsage | null;
}

export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** Sent as `prompt_tokens_details.cached_tokens`. */
  cached_tokens?: number;
  /** Sent as `completion_tokens_details.reasoning_tokens`. */
  reasoning_tokens?: number;
}

export interface WireMeta {
  id: string;
  model: string;
  created: number;
}

const FINGERPRINT = "fp_weft";

function chunk(meta: WireMeta, delta: Record<string, unknown>, finishReason: string | null, index: number, includeUsage: boolean) {
  return {
    id: meta.id,
    object: "chat.completion.chunk",
    created: meta.created,
    model: meta.model,
    system_fingerprint: FINGERPRINT,
    choices: [{ index, delta, logprobs: null, finish_reason: finishReason }],
    // With `stream_options.include_usage`, every chunk but the last carries `usage: null` (OpenAI API reference).
    ...(includeUsage ? { usage: null } : {}),
  };
}

function usage(wire: WireUsage, choices: number) {
  const { prompt_tokens, completion_tokens, cached_tokens = 0, reasoning_tokens = 0 } = wire;
  return {
    prompt_tokens,
    completion_tokens: completion_tokens * choices,
    total_tokens: prompt_tokens + completion_tokens * choices,
    prompt_tokens_details: { cached_tokens },
    completion_tokens_details: { reasoning_tokens: reasoning_tokens * choices },
  };
}

/**
 * The `chat.completion.chunk` objects of a streamed reply, in order, without the `[DONE]` line;
 * `choices` (the request's `n`) copies of the reply, each under its own index.
 */
export function replyChunks(reply: WireReply, meta: WireMeta, includeUsage: boolean, choices = 1): object[] {
  const out: object[] = [];
  for (let c = 0; c < choices; c++) {
    const at = (delta: Record<string, unknown>, finishReason: string | null = null) => chunk(meta, delta, finishReason, c, includeUsage && reply.usage !== null);
    out.push(at({ role: "assistant", content: "" }));
    for (const piece of reply.reasoningChunks) out.push(at({ reasoning_content: piece }));
    for (const piece of reply.contentChunks) out.push(at({ content: piece }));
    reply.toolCalls.forEach((call, index) => {
      out.push(at({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
      for (const piece of call.argumentChunks) out.push(at({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    out.push(at({}, reply.finishReason));
  }
  if (includeUsage && reply.usage) {
    out.push({ id: meta.id, object: "chat.completion.chunk", created: meta.created, model: meta.model, system_fingerprint: FINGERPRINT, choices: [], usage: usage(reply.usage, choices) });
  }
  return out;
}

/** The same reply as one non-streaming `chat.completion` body. */
export function replyCompletion(reply: WireReply, meta: WireMeta, choices = 1): object {
  const content = reply.contentChunks.join("");
  const message: Record<string, unknown> = {
    role: "assistant",
    content: content === "" && reply.toolCalls.length > 0 ? null : content,
    refusal: null,
  };
  if (reply.reasoningChunks.length > 0) message.reasoning_content = reply.reasoningChunks.join("");
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.argumentChunks.join("") } }));
  }
  return {
    id: meta.id,
    object: "chat.completion",
    created: meta.created,
    model: meta.model,
    system_fingerprint: FINGERPRINT,
    choices: Array.from({ length: choices }, (_, index) => ({ index, message, logprobs: null, finish_reason: reply.finishReason })),
    ...(reply.usage ? { usage: usage(reply.usage, choices) } : {}),
  };
}

export function sseLine(data: object | "[DONE]"): string {
  return `data: ${data === "[DONE]" ? data : JSON.stringify(data)}\n\n`;
}

export function errorBody(message: string, type: string, code: string | null = null, param: string | null = null): object {
  return { error: { message, type, param, code } };
}

export function modelBody(id: string, created: number): object {
  return { id, object: "model", created, owned_by: "weft" };
}

export function modelsBody(models: readonly string[], created: number): object {
  return { object: "list", data: models.map((id) => modelBody(id, created)) };
}

/** Rough token count for usage figures: about four characters a token. */
export function approxTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Splits text into word-sized pieces (each keeps its leading space), the way models stream. */
export function splitForStreaming(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? (text === "" ? [] : [text]);
}

/** Splits a string into `parts` nearly equal pieces (at least one, none empty unless the string is). */
export function splitEvenly(text: string, parts: number): string[] {
  if (text.length === 0) return [""];
  const n = Math.max(1, Math.min(parts, text.length));
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
