import { z } from "zod";
import { NodeFailure } from "./node-failure.ts";

/** OpenAI-compatible chat message (seed 000 §4.1). */
export const ToolCallSchema = z.object({
  id: z.string(),
  type: z.literal("function").default("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const SystemMessageSchema = z.object({ role: z.literal("system"), content: z.string() });
export const UserMessageSchema = z.object({ role: z.literal("user"), content: z.string() });
export const AssistantMessageSchema = z.object({
  role: z.literal("assistant"),
  content: z.string().nullable(),
  tool_calls: z.array(ToolCallSchema).optional(),
  /** DeepSeek-style reasoning, passed back to providers that require it; never parsed for actions. */
  reasoning_content: z.string().optional(),
});
export const ToolMessageSchema = z.object({ role: z.literal("tool"), tool_call_id: z.string(), content: z.string() });

export const ChatMessageSchema = z.discriminatedUnion("role", [SystemMessageSchema, UserMessageSchema, AssistantMessageSchema, ToolMessageSchema]);
export type ChatMessage = z.infer<typeof ChatMessageSchema>;
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;

export const FunctionToolSchema = z.object({
  type: z.literal("function"),
  function: z.object({ name: z.string(), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()) }),
});
export type FunctionTool = z.infer<typeof FunctionToolSchema>;

export const ToolChoiceSchema = z.union([z.enum(["auto", "none", "required"]), z.object({ type: z.literal("function"), function: z.object({ name: z.string() }) })]);
export type ToolChoice = z.infer<typeof ToolChoiceSchema>;

export const ResponseFormatSchema = z.object({
  type: z.literal("json_schema"),
  json_schema: z.object({ name: z.string(), schema: z.record(z.string(), z.unknown()), strict: z.boolean().optional() }),
});
export type ResponseFormat = z.infer<typeof ResponseFormatSchema>;

/**
 * The tokens one LLM call used (`TokenUsage`): the provider's `usage` (cached = `prompt_tokens_details.cached_tokens`,
 * reasoning = `completion_tokens_details.reasoning_tokens`, both part of prompt and completion), or, when it sent none,
 * an estimate (`estimated: true`, see `estimateTokens`).
 */
export const LlmUsageSchema = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
  cachedTokens: z.number().int().nonnegative().optional(),
  reasoningTokens: z.number().int().nonnegative().optional(),
  estimated: z.boolean().optional(),
});
export type LlmUsage = z.infer<typeof LlmUsageSchema>;
export type TokenUsage = LlmUsage;

/** The estimate when a provider reports no usage: about four characters a token (OpenAI's rule of thumb for English), rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Prices in US dollars per million tokens; an absent price is unknown (never guessed): the cost is then unknown too. */
export const LlmPricesSchema = z.object({
  inputPerMillion: z.number().nonnegative().optional(),
  cachedInputPerMillion: z.number().nonnegative().optional(),
  outputPerMillion: z.number().nonnegative().optional(),
});
export type LlmPrices = z.infer<typeof LlmPricesSchema>;

/**
 * What a call cost in US dollars at these prices, or undefined when a price it needs is unknown.
 * Cached prompt tokens are billed at the cached price (the input price when no cached price is set, as providers without
 * a discount do); reasoning tokens are output tokens.
 */
export function costOf(usage: LlmUsage, prices: LlmPrices | undefined): number | undefined {
  if (!prices || prices.inputPerMillion === undefined || prices.outputPerMillion === undefined) return undefined;
  const cached = Math.min(usage.cachedTokens ?? 0, usage.promptTokens);
  const cachedPrice = prices.cachedInputPerMillion ?? prices.inputPerMillion;
  return ((usage.promptTokens - cached) * prices.inputPerMillion + cached * cachedPrice + usage.completionTokens * prices.outputPerMillion) / 1_000_000;
}

export const LlmChatRequestSchema = z.object({
  messages: z.array(ChatMessageSchema),
  model: z.string().optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
  tools: z.array(FunctionToolSchema).optional(),
  toolChoice: ToolChoiceSchema.optional(),
  /** JSON valid against a schema (OpenAI `response_format: json_schema`); a provider without it answers BAD_REQUEST. */
  responseFormat: ResponseFormatSchema.optional(),
  /** Which configured LLM profile to use; the default profile when absent. */
  profileId: z.string().optional(),
  /**
   * Whether the model of the client that started the run answers instead (an MCP client offering `sampling`):
   * `preferred` uses it when offered and the profile otherwise; `required` fails with CALLER_MODEL_UNAVAILABLE when not offered.
   */
  callerModel: z.enum(["preferred", "required"]).optional(),
});
export type LlmChatRequest = z.infer<typeof LlmChatRequestSchema>;

export type LlmStreamChunk = { kind: "text"; text: string } | { kind: "reasoning"; text: string };

/**
 * What a caller can branch on when an LLM call fails. The first eight follow the provider's
 * answer; BAD_REQUEST (a 400 that is not about context length), PROVIDER_ERROR (5xx) and
 * PROFILE_NOT_FOUND (no such configured profile) need different fixes, so they get their own codes.
 */
export const LLM_ERROR_CODES = [
  "AUTH",
  "RATE_LIMIT",
  /** The account has no quota or credit left (OpenAI `insufficient_quota`): retrying does not help. */
  "QUOTA",
  "TIMEOUT",
  "NETWORK",
  "BAD_RESPONSE",
  "CONTEXT_LENGTH",
  "MODEL_NOT_FOUND",
  "CANCELLED",
  "BAD_REQUEST",
  "PROVIDER_ERROR",
  "PROFILE_NOT_FOUND",
  /** Refused before it was sent: the call would have passed a token or cost budget (the message says which and how to raise it). */
  "BUDGET_EXCEEDED",
  /** The node asked for the calling client's model (`callerModel: required`) and the run's caller offers none. */
  "CALLER_MODEL_UNAVAILABLE",
] as const;
export const LlmErrorCodeSchema = z.enum(LLM_ERROR_CODES);
export type LlmErrorCode = z.infer<typeof LlmErrorCodeSchema>;

export const LlmErrorInfoSchema = z.object({
  code: LlmErrorCodeSchema,
  message: z.string(),
  /** How to fix it, in the user's terms. */
  hint: z.string(),
  status: z.number().int().optional(),
  /** Text streamed before the failure (seed 003 §4.3.4): kept so "continue" has an anchor. */
  partialText: z.string().optional(),
  partialReasoning: z.string().optional(),
  retryAfterMs: z.number().nonnegative().optional(),
});
export type LlmErrorInfo = z.infer<typeof LlmErrorInfoSchema>;

/** One request/response exchange with a provider, kept for debugging (seed 000 §4.2 `EngineTurn`). */
export const LlmTurnSchema = z.object({
  id: z.string(),
  profileId: z.string().optional(),
  model: z.string(),
  baseUrl: z.string(),
  startedAt: z.number(),
  durationMs: z.number().nonnegative(),
  /** HTTP attempts made (more than one after a rate-limit retry). */
  attempts: z.number().int().positive(),
  request: z.object({
    messages: z.array(ChatMessageSchema),
    tools: z.array(FunctionToolSchema),
    temperature: z.number().optional(),
    maxTokens: z.number().int().optional(),
    toolChoice: ToolChoiceSchema.optional(),
  }),
  response: z.object({ assistant: AssistantMessageSchema, finishReason: z.string(), usage: LlmUsageSchema.optional() }).optional(),
  error: LlmErrorInfoSchema.optional(),
  /** The provider's response as received: the assembled stream with every field it sent. */
  raw: z.unknown(),
});
export type LlmTurn = z.infer<typeof LlmTurnSchema>;

export interface LlmChatResult {
  text: string;
  reasoning?: string;
  toolCalls: ToolCall[];
  finishReason: string;
  usage?: LlmUsage;
  /** US dollars at the profile's prices; absent when a price is unknown (or no service priced it). */
  costUsd?: number;
  model: string;
  /** The assistant message to append to the history (with `reasoning_content` when there was any). */
  message: AssistantMessage;
  /** Provider's raw response (the assembled stream), kept for debugging (seed 000 §4.2). */
  raw?: unknown;
  turn?: LlmTurn;
  /** `client`: answered by the calling client's model (MCP sampling), which Weft does not pay for; absent: an LLM profile. */
  source?: "client";
}

/**
 * A failed LLM call. It is a `NodeFailure`, so a node that lets it through fails with the LLM code;
 * `details` carries the JSON-safe fields (status, hint, partial output), `turn` the full record.
 */
export class LlmError extends NodeFailure {
  override readonly code: LlmErrorCode;
  readonly hint: string;
  readonly status?: number;
  readonly partialText?: string;
  readonly partialReasoning?: string;
  readonly retryAfterMs?: number;
  turn?: LlmTurn;

  constructor(info: LlmErrorInfo) {
    const { code, message, ...rest } = info;
    super(code, message, rest);
    this.name = "LlmError";
    this.code = code;
    this.hint = info.hint;
    this.status = info.status;
    this.partialText = info.partialText;
    this.partialReasoning = info.partialReasoning;
    this.retryAfterMs = info.retryAfterMs;
  }

  toInfo(): LlmErrorInfo {
    const info: LlmErrorInfo = { code: this.code, message: this.message, hint: this.hint };
    if (this.status !== undefined) info.status = this.status;
    if (this.partialText) info.partialText = this.partialText;
    if (this.partialReasoning) info.partialReasoning = this.partialReasoning;
    if (this.retryAfterMs !== undefined) info.retryAfterMs = this.retryAfterMs;
    return info;
  }
}

/**
 * A configured OpenAI-compatible endpoint. The backend stores these (key encrypted at rest);
 * the runtime only reads them through an `LlmProfileResolver`.
 */
export const LlmProfileSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  baseUrl: z.string().regex(/^https?:\/\/\S+$/, "must be an http:// or https:// URL, e.g. https://api.openai.com/v1"),
  model: z.string().min(1),
  apiKey: z.string().optional(),
  timeoutMs: z.number().int().positive().default(60_000),
  temperature: z.number().min(0).max(2).optional(),
  contextWindow: z.number().int().positive().optional(),
  /** Send each assistant turn's `reasoning_content` back (DeepSeek thinking mode requires it). */
  passBackReasoning: z.boolean().default(false),
  /** Retries of a rate-limited (429) or 5xx request before giving up. */
  maxRetries: z.number().int().min(0).max(10).default(2),
  /** What the provider charges; absent = unknown, so the cost of its calls is shown as unknown. */
  prices: LlmPricesSchema.optional(),
});
export type LlmProfile = z.infer<typeof LlmProfileSchema>;
export type LlmProfileInput = z.input<typeof LlmProfileSchema>;

/** Where LLM profiles come from (the backend's encrypted store, a static list in tests and the CLI). */
export interface LlmProfileResolver {
  /** The profile with this id, or the default one when `profileId` is absent; undefined when none. */
  resolve(profileId?: string): Promise<LlmProfile | undefined>;
}

/** Who made an LLM call, for the usage record: the node invocation, and the agent conversation and scene around it. */
export interface LlmCaller {
  runId?: string;
  nodeId?: string;
  invocationId?: string;
  agentId?: string;
  conversationId?: string;
  sceneId?: string;
  /** The user the call acts for, when the caller knows it (an agent's loop: who sent the message); else the run's creator. */
  userId?: string;
}

export interface LlmCallOptions {
  signal?: AbortSignal;
  onChunk?: (chunk: LlmStreamChunk) => void;
  /** Named on the call's usage record; wrappers (an agent, a scene) add what they know. */
  caller?: LlmCaller;
}

/** One LLM call's usage as the `LlmService` reports it (errors included: a failed call may have used tokens too). */
export interface LlmCallUsage {
  caller: LlmCaller;
  profileId: string;
  model: string;
  usage: LlmUsage;
  /** US dollars at the profile's prices when the call was made; undefined when a price is unknown. */
  costUsd?: number;
  at: number;
}

/** An LLM call about to be sent, with the tokens and cost it may use at most (its prompt estimated, its completion at `maxTokens` or a default). */
export interface LlmCallEstimate {
  caller: LlmCaller;
  profileId: string;
  usage: LlmUsage;
  /** Undefined when a price of the profile is unknown. */
  costUsd?: number;
}

/** What a budget check lets through: a note the model is given when a budget runs low (the call goes on). */
export interface LlmCallAllowance {
  notice?: string;
  /** Frees what the check reserved for the call: called once the call has ended and its usage is stored, or it failed. */
  release?: () => void;
}

/** The LLM as nodes see it. A failed call rejects with an `LlmError` (code, hint, partial output). */
export interface LlmService {
  chat(request: LlmChatRequest, options?: LlmCallOptions): Promise<LlmChatResult>;
}
