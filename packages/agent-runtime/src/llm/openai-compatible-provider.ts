import OpenAI from "openai";
import {
  LlmError,
  estimateTokens,
  silentLogger,
  type ChatMessage,
  type LlmCallOptions,
  type LlmChatRequest,
  type LlmChatResult,
  type LlmErrorInfo,
  type LlmProfile,
  type LlmStreamChunk,
  type LlmTurn,
  type LlmUsage,
  type Logger,
} from "@weft/types";
import { classifyLlmFailure, displayUrl, streamEndedEarly, type FailureContext } from "./errors.ts";
import { StreamAssembler } from "./stream-assembler.ts";
import { toProviderMessages } from "./provider-messages.ts";

export interface ProviderConfig {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Time allowed without progress: until the response starts, then between stream chunks. */
  timeoutMs: number;
  temperature?: number;
  /** Retries of a 429 or 5xx answer before giving up. */
  maxRetries: number;
  passBackReasoning: boolean;
  profileId?: string;
  /** First backoff delay when the provider gives no retry-after; doubles per retry. */
  retryBaseDelayMs?: number;
  /** A retry-after longer than this is not waited for: the RATE_LIMIT error is returned instead. */
  maxRetryDelayMs?: number;
  logger?: Logger;
}

export type ProviderRequest = Omit<LlmChatRequest, "profileId">;

/** Errors are values: the turn record is there either way. */
export type LlmOutcome = { ok: true; result: LlmChatResult; turn: LlmTurn } | { ok: false; error: LlmError; turn: LlmTurn };

export type ConnectionTestResult = { ok: true; latencyMs: number; model: string } | { ok: false; latencyMs: number; error: LlmErrorInfo };

/** `responded`: the endpoint answered 200 and the stream had begun, so a break is not a refused connection. */
type AttemptResult = { ok: true; assembler: StreamAssembler } | { ok: false; error: LlmError; assembler: StreamAssembler; responded: boolean };

/** Raised around a caller's onChunk failure so it is rethrown, not mistaken for a provider failure. */
class ChunkCallbackError extends Error {
  constructor(readonly original: unknown) {
    super("onChunk failed");
  }
}

/**
 * Any OpenAI-compatible Chat Completions endpoint (OpenAI, DeepSeek, a local server, the demo LLM),
 * through the `openai` SDK. Always streams, so partial text survives a failure.
 */
export class OpenAiCompatibleProvider {
  private readonly client: OpenAI;
  private readonly log: Logger;
  /** The base URL without anything secret, for logs, hints and turn records. */
  private readonly shownUrl: string;

  constructor(private readonly config: ProviderConfig) {
    this.log = (config.logger ?? silentLogger).child("llm");
    this.shownUrl = displayUrl(config.baseUrl);
    this.client = new OpenAI({
      baseURL: config.baseUrl,
      // The SDK refuses to start without a key; keyless local servers ignore this placeholder.
      apiKey: config.apiKey || "no-key",
      timeout: config.timeoutMs,
      maxRetries: 0,
      logLevel: "off",
    });
  }

  static fromProfile(profile: LlmProfile, logger?: Logger): OpenAiCompatibleProvider {
    return new OpenAiCompatibleProvider({
      baseUrl: profile.baseUrl,
      model: profile.model,
      apiKey: profile.apiKey,
      timeoutMs: profile.timeoutMs,
      temperature: profile.temperature,
      maxRetries: profile.maxRetries,
      passBackReasoning: profile.passBackReasoning,
      profileId: profile.id,
      logger,
    });
  }

  async complete(request: ProviderRequest, options: LlmCallOptions = {}): Promise<LlmOutcome> {
    const startedAt = Date.now();
    const turnId = crypto.randomUUID();
    const model = request.model || this.config.model;
    const messages = toProviderMessages(request.messages, this.config.passBackReasoning);
    const temperature = request.temperature ?? this.config.temperature;
    const tools = request.tools ?? [];
    const body: OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming = {
      model,
      messages: messages.map(toSdkMessage),
      stream: true,
      stream_options: { include_usage: true },
      ...(temperature !== undefined ? { temperature } : {}),
      ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
      ...(tools.length > 0 ? { tools } : {}),
      ...(request.toolChoice !== undefined ? { tool_choice: request.toolChoice } : {}),
      ...(request.responseFormat !== undefined ? { response_format: request.responseFormat } : {}),
    };
    const turn = (attempts: number): LlmTurn => ({
      id: turnId,
      ...(this.config.profileId ? { profileId: this.config.profileId } : {}),
      model,
      baseUrl: this.shownUrl,
      startedAt,
      durationMs: Date.now() - startedAt,
      attempts,
      request: {
        messages,
        tools,
        ...(temperature !== undefined ? { temperature } : {}),
        ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
        ...(request.toolChoice !== undefined ? { toolChoice: request.toolChoice } : {}),
      },
      raw: undefined,
    });

    for (let attempt = 1; ; attempt++) {
      this.log.debug("chat completion", { model, baseUrl: this.shownUrl, attempt });
      const result = await this.attempt(body, model, turnId, options);
      if (result.ok) {
        const done = turn(attempt);
        const chat = toChatResult(result.assembler, model, done, body);
        done.raw = chat.raw;
        done.response = { assistant: chat.message, finishReason: chat.finishReason, ...(chat.usage ? { usage: chat.usage } : {}) };
        return { ok: true, result: chat, turn: done };
      }
      const delay = this.retryDelay(result.error, attempt, result.assembler, result.responded);
      if (delay !== undefined) {
        this.log.info("retrying LLM call", { code: result.error.code, attempt, delayMs: delay });
        if (await sleep(delay, options.signal)) continue;
        return this.failed(turn(attempt), result.assembler, this.cancelledError());
      }
      return this.failed(turn(attempt), result.assembler, result.error);
    }
  }

  /** A one-token request: proves the URL, key and model together. */
  async testConnection(signal?: AbortSignal): Promise<ConnectionTestResult> {
    const started = performance.now();
    const outcome = await this.complete({ messages: [{ role: "user", content: "ping" }], maxTokens: 1 }, { signal });
    const latencyMs = Math.round(performance.now() - started);
    return outcome.ok ? { ok: true, latencyMs, model: outcome.result.model } : { ok: false, latencyMs, error: outcome.error.toInfo() };
  }

  private async attempt(body: OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming, model: string, turnId: string, options: LlmCallOptions): Promise<AttemptResult> {
    const assembler = new StreamAssembler(`call_${turnId.slice(0, 8)}`);
    const controller = new AbortController();
    const { signal, onChunk } = options;
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, this.config.timeoutMs);
    };
    const onAbort = () => controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    const context = (): FailureContext => ({
      baseUrl: this.shownUrl,
      model,
      timeoutMs: this.config.timeoutMs,
      hasApiKey: Boolean(this.config.apiKey),
      timedOut,
      cancelled: signal?.aborted === true,
      partialText: assembler.text,
      partialReasoning: assembler.reasoning,
      started: assembler.chunks > 0,
    });
    let responded = false;
    try {
      if (signal?.aborted) return { ok: false, error: classifyLlmFailure(undefined, context()), assembler, responded };
      arm();
      const stream = await this.client.chat.completions.create(body, { signal: controller.signal });
      responded = true;
      arm();
      for await (const chunk of stream) {
        arm();
        const added = assembler.push(chunk);
        if (added.reasoning) deliver(onChunk, { kind: "reasoning", text: added.reasoning });
        if (added.text) deliver(onChunk, { kind: "text", text: added.text });
      }
      // The SDK ends an aborted stream quietly; the abort is still a failure.
      if (controller.signal.aborted) return { ok: false, error: classifyLlmFailure(undefined, context()), assembler, responded };
      if (assembler.finishReason === undefined) return { ok: false, error: streamEndedEarly(context(), assembler.chunks), assembler, responded };
      return { ok: true, assembler };
    } catch (error) {
      if (error instanceof ChunkCallbackError) throw error.original;
      return { ok: false, error: classifyLlmFailure(error, context()), assembler, responded };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Milliseconds to wait before retrying, or undefined when this failure is final. */
  private retryDelay(error: LlmError, attempt: number, assembler: StreamAssembler, responded: boolean): number | undefined {
    if (attempt > this.config.maxRetries) return undefined;
    // Never replay a request whose answer had started: the caller already saw those tokens.
    if (assembler.produced) return undefined;
    // A stream that broke before its first token is a glitch worth one more try, even when the break came before
    // its first chunk was read (a busy client reads late); a refused connection is not.
    const reset = error.code === "NETWORK" && responded;
    if (error.code !== "RATE_LIMIT" && error.code !== "PROVIDER_ERROR" && !reset) return undefined;
    const maxDelay = this.config.maxRetryDelayMs ?? 30_000;
    if (error.retryAfterMs !== undefined) return error.retryAfterMs <= maxDelay ? error.retryAfterMs : undefined;
    return Math.min(maxDelay, (this.config.retryBaseDelayMs ?? 500) * 2 ** (attempt - 1));
  }

  private failed(turn: LlmTurn, assembler: StreamAssembler, error: LlmError): LlmOutcome {
    turn.raw = assembler.chunks > 0 ? assembler.raw() : undefined;
    turn.error = error.toInfo();
    error.turn = turn;
    this.log.debug("LLM call failed", { code: error.code, status: error.status, model: turn.model });
    return { ok: false, error, turn };
  }

  private cancelledError(): LlmError {
    return classifyLlmFailure(undefined, {
      baseUrl: this.shownUrl,
      model: this.config.model,
      timeoutMs: this.config.timeoutMs,
      hasApiKey: Boolean(this.config.apiKey),
      timedOut: false,
      cancelled: true,
      partialText: "",
      partialReasoning: "",
      started: false,
    });
  }
}

function deliver(onChunk: ((chunk: LlmStreamChunk) => void) | undefined, chunk: LlmStreamChunk): void {
  if (!onChunk) return;
  try {
    onChunk(chunk);
  } catch (error) {
    throw new ChunkCallbackError(error);
  }
}

function toChatResult(assembler: StreamAssembler, model: string, turn: LlmTurn, body: OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming): LlmChatResult {
  const toolCalls = assembler.toolCalls();
  const usage = assembler.usage ?? estimateUsage(body, assembler.text + assembler.reasoning + toolCalls.map((c) => c.function.name + c.function.arguments).join(""));
  const message: LlmChatResult["message"] = {
    role: "assistant",
    content: assembler.text === "" && toolCalls.length > 0 ? null : assembler.text,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    ...(assembler.reasoning ? { reasoning_content: assembler.reasoning } : {}),
  };
  return {
    text: assembler.text,
    ...(assembler.reasoning ? { reasoning: assembler.reasoning } : {}),
    toolCalls,
    finishReason: assembler.finishReason ?? "stop",
    usage,
    model: assembler.model(model),
    message,
    raw: assembler.raw(),
    turn,
  };
}

/**
 * The usage of a call whose provider reported none (it ignored `stream_options.include_usage`): `estimateTokens` over
 * the request as sent (messages and tool definitions) and over the answer, marked as an estimate.
 */
export function estimateUsage(body: Pick<OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming, "messages" | "tools">, answer: string): LlmUsage {
  const promptTokens = estimateTokens(JSON.stringify(body.messages) + (body.tools ? JSON.stringify(body.tools) : ""));
  const completionTokens = estimateTokens(answer);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, estimated: true };
}

/** Our message type to the SDK's; `reasoning_content` rides along only when it survived `toProviderMessages`. */
function toSdkMessage(message: ChatMessage): OpenAI.Chat.Completions.ChatCompletionMessageParam {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "tool":
      return { role: "tool", tool_call_id: message.tool_call_id, content: message.content };
    case "assistant": {
      const out: OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam & { reasoning_content?: string } = {
        role: "assistant",
        content: message.content,
      };
      if (message.tool_calls && message.tool_calls.length > 0) out.tool_calls = message.tool_calls;
      if (message.reasoning_content !== undefined) out.reasoning_content = message.reasoning_content;
      return out;
    }
    default: {
      const never: never = message;
      return never;
    }
  }
}

/** Resolves true after `ms`, false as soon as the signal aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
