import { z } from "zod";

/**
 * The OpenAI Chat Completions wire format, as far as Weft speaks it: the request a client sends
 * (`ChatCompletionRequestSchema`) and the answers, chunks, model list and error bodies it reads back.
 */

/** Per message, as POST /api/agents/:id/messages allows. */
export const MAX_MESSAGE_CHARS = 100_000;
/** Messages per request: the history a client replays each turn. */
export const MAX_MESSAGES = 500;

const TextPartSchema = z.object({ type: z.literal("text"), text: z.string() });
/** A message's content: a text, or text parts (images, audio and files are refused: agents take text). */
const ContentSchema = z.union([z.string(), z.array(TextPartSchema)], {
  error: 'must be a text or a list of text parts ({"type": "text", "text": …}); images, audio and files are not supported: agents take text',
});

const named = { name: z.string().max(200).optional() };
const SystemMessageSchema = z.object({ role: z.enum(["system", "developer"]), content: ContentSchema, ...named });
const UserMessageSchema = z.object({ role: z.literal("user"), content: ContentSchema, ...named });
const AssistantMessageSchema = z.object({
  role: z.literal("assistant"),
  content: ContentSchema.nullish(),
  ...named,
  refusal: z.string().nullish(),
  tool_calls: z.array(z.unknown()).max(0, "tool calls are not supported: an agent's tools run inside Weft").optional(),
});

/** Roles a client's tools would need: refused with the reason. */
const ToolRoleSchema = z.object({ role: z.enum(["tool", "function"]) }).superRefine((_, ctx) => {
  ctx.addIssue({ code: "custom", message: "tool and function messages are not supported: an agent's tools run inside Weft, not in the client" });
});

export const ChatMessageSchema = z.discriminatedUnion("role", [SystemMessageSchema, UserMessageSchema, AssistantMessageSchema, ToolRoleSchema], {
  error: 'role must be "system", "developer", "user" or "assistant"',
});

/** A parameter Weft cannot honour: absent, null or an empty list only. */
const unsupported = (why: string) =>
  z
    .unknown()
    .superRefine((value, ctx) => {
      if (value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0)) ctx.addIssue({ code: "custom", message: why });
    })
    .optional();

/**
 * POST /v1/chat/completions. Sampling and bookkeeping parameters (temperature, top_p, max_tokens, stop, seed, user,
 * metadata, …) are accepted and ignored: the agent's LLM profile decides them. Parameters that would change what
 * the answer is (client tools, several choices, a response format, log probabilities, audio) are refused.
 */
export const ChatCompletionRequestSchema = z.looseObject({
  model: z.string().min(1, "is empty; name an agent (GET /v1/models lists them)").max(200),
  messages: z
    .array(ChatMessageSchema)
    .min(1, "is empty; send at least the user's message")
    .max(MAX_MESSAGES, `has more than ${MAX_MESSAGES} messages; start a new conversation or shorten the history`),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional(), include_obfuscation: z.boolean().optional() }).nullish(),
  n: z.literal(1, "only n = 1 is supported: an agent gives one answer").nullish(),
  tools: unsupported("tools are not supported: an agent's tools are its own (its profile's), and they run inside Weft"),
  tool_choice: unsupported("tool_choice is not supported: an agent chooses among its own tools"),
  functions: unsupported("functions are not supported: an agent's tools are its own"),
  function_call: unsupported("function_call is not supported: an agent chooses among its own tools"),
  logprobs: z.literal(false, "logprobs are not supported").nullish(),
  top_logprobs: unsupported("top_logprobs are not supported"),
  audio: unsupported("audio output is not supported: agents answer in text"),
  modalities: z.array(z.literal("text", "only the text modality is supported")).nullish(),
  response_format: z
    .object({ type: z.literal("text", 'only response_format {type: "text"} is supported; describe the format in the message instead') })
    .loose()
    .nullish(),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** A message's text: the string, or its text parts joined by blank lines. */
export function textOf(content: z.infer<typeof ContentSchema> | null | undefined): string {
  if (content === null || content === undefined) return "";
  return typeof content === "string" ? content : content.map((part) => part.text).join("\n\n");
}

export type FinishReason = "stop" | "length";

/** The tokens an answer cost, summed over every LLM call of the agent's loop for it (OpenAI's `usage` object). */
export const CompletionUsageSchema = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().int() }),
  completion_tokens_details: z.object({ reasoning_tokens: z.number().int() }),
});
export type CompletionUsage = z.infer<typeof CompletionUsageSchema>;

export const ChatCompletionSchema = z.object({
  id: z.string(),
  object: z.literal("chat.completion"),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({ role: z.literal("assistant"), content: z.string(), refusal: z.null() }),
      logprobs: z.null(),
      finish_reason: z.enum(["stop", "length"]),
    }),
  ),
  usage: CompletionUsageSchema.optional(),
});

export const ModelSchema = z.object({ id: z.string(), object: z.literal("model"), created: z.number().int(), owned_by: z.string() });
export const ModelListSchema = z.object({ object: z.literal("list"), data: z.array(ModelSchema) });

export const OpenAiErrorBodySchema = z.object({ error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }) });
export type OpenAiErrorBody = z.infer<typeof OpenAiErrorBodySchema>;

/** `chatcmpl-<conversation id>`: the answer's id names the Weft conversation that holds its steps. */
export const completionId = (conversationId: string) => `chatcmpl-${conversationId}`;

export function completion(id: string, model: string, created: number, content: string, finishReason: FinishReason, usage?: CompletionUsage): z.infer<typeof ChatCompletionSchema> {
  return {
    id,
    object: "chat.completion",
    created,
    model,
    choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, logprobs: null, finish_reason: finishReason }],
    ...(usage ? { usage } : {}),
  };
}

/** The last chunk of a stream asked for with `stream_options.include_usage`: no choices, the answer's usage. */
export function usageChunk(id: string, model: string, created: number, usage: CompletionUsage) {
  return { id, object: "chat.completion.chunk" as const, created, model, choices: [], usage };
}

/** One `chat.completion.chunk`: a delta (the role first, then the content) or the end (`finishReason`, empty delta). */
export function chunk(id: string, model: string, created: number, delta: { role?: "assistant"; content?: string }, finishReason: FinishReason | null = null) {
  return { id, object: "chat.completion.chunk" as const, created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] };
}
