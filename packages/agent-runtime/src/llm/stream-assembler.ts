import type { LlmUsage, ToolCall } from "@weft/types";

interface PartialToolCall {
  id: string;
  name: string;
  arguments: string;
}

type Json = Record<string, unknown>;

const KNOWN_DELTA_FIELDS = new Set(["role", "content", "reasoning_content", "reasoning", "tool_calls", "refusal", "function_call"]);
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Folds OpenAI `chat.completion.chunk` events into one answer: text, reasoning
 * (`reasoning_content`, DeepSeek; `reasoning`, some gateways), tool calls assembled from their
 * indexed deltas, finish reason and usage. It keeps every top-level and delta field the provider
 * sent, so the raw response can be inspected or passed back (seed 000 §8).
 */
export class StreamAssembler {
  text = "";
  reasoning = "";
  finishReason: string | undefined;
  usage: LlmUsage | undefined;
  chunks = 0;
  private readonly calls: PartialToolCall[] = [];
  private readonly top: Json = {};
  private readonly extraDelta: Record<string, string> = {};
  private rawUsage: unknown;

  constructor(private readonly callIdPrefix: string) {}

  /** Takes one parsed chunk; returns the text and reasoning it added. */
  push(chunk: unknown): { text: string; reasoning: string } {
    this.chunks++;
    const added = { text: "", reasoning: "" };
    if (!isObject(chunk)) return added;
    for (const key of ["id", "object", "created", "model", "system_fingerprint", "service_tier"]) {
      if (chunk[key] !== undefined && this.top[key] === undefined) this.top[key] = chunk[key];
    }
    if (isObject(chunk.usage)) {
      this.rawUsage = chunk.usage;
      this.usage = toUsage(chunk.usage);
    }
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const choice of choices) {
      // Only the first choice is used: we never ask for n > 1.
      if (!isObject(choice) || (choice.index ?? 0) !== 0) continue;
      if (typeof choice.finish_reason === "string") this.finishReason = choice.finish_reason;
      const delta = choice.delta;
      if (!isObject(delta)) continue;
      if (typeof delta.content === "string") added.text = delta.content;
      const reasoning = typeof delta.reasoning_content === "string" ? delta.reasoning_content : typeof delta.reasoning === "string" ? delta.reasoning : "";
      added.reasoning = reasoning;
      if (Array.isArray(delta.tool_calls)) for (const d of delta.tool_calls) this.pushToolCall(d);
      for (const [key, value] of Object.entries(delta)) {
        if (!KNOWN_DELTA_FIELDS.has(key) && typeof value === "string") this.extraDelta[key] = (this.extraDelta[key] ?? "") + value;
      }
    }
    this.text += added.text;
    this.reasoning += added.reasoning;
    return added;
  }

  /** Some answer arrived: text, reasoning or a tool call. */
  get produced(): boolean {
    return this.text !== "" || this.reasoning !== "" || this.calls.length > 0;
  }

  toolCalls(): ToolCall[] {
    const calls: ToolCall[] = [];
    this.calls.forEach((c, index) => {
      if (c.name === "") return;
      // Some OpenAI-compatible servers omit call ids; the protocol needs one to pair the result.
      const id = c.id || `${this.callIdPrefix}_${index}`;
      calls.push({ id, type: "function", function: { name: c.name, arguments: c.arguments } });
    });
    return calls;
  }

  model(fallback: string): string {
    return typeof this.top.model === "string" && this.top.model !== "" ? this.top.model : fallback;
  }

  /** The stream as the equivalent non-streaming response, plus the number of chunks received. */
  raw(): Json {
    const calls = this.toolCalls();
    const message: Json = { role: "assistant", content: this.text === "" && calls.length > 0 ? null : this.text, ...this.extraDelta };
    if (this.reasoning) message.reasoning_content = this.reasoning;
    if (calls.length > 0) message.tool_calls = calls;
    return {
      ...this.top,
      object: "chat.completion",
      choices: [{ index: 0, message, finish_reason: this.finishReason ?? null }],
      ...(this.rawUsage !== undefined ? { usage: this.rawUsage } : {}),
      streamChunks: this.chunks,
    };
  }

  private pushToolCall(delta: unknown): void {
    if (!isObject(delta)) return;
    // Without an index (some servers omit it), a delta continues the last call unless it opens a new one with another id.
    const last = this.calls.length - 1;
    const opensNew = last < 0 || (typeof delta.id === "string" && delta.id !== "" && this.calls[last]!.id !== "" && delta.id !== this.calls[last]!.id);
    const index = typeof delta.index === "number" ? delta.index : opensNew ? this.calls.length : last;
    const call = (this.calls[index] ??= { id: "", name: "", arguments: "" });
    if (typeof delta.id === "string" && delta.id !== "" && call.id === "") call.id = delta.id;
    const fn = isObject(delta.function) ? delta.function : {};
    // The name arrives whole in the first delta; later deltas carry only argument pieces.
    if (typeof fn.name === "string" && fn.name !== "" && call.name === "") call.name = fn.name;
    if (typeof fn.arguments === "string") call.arguments += fn.arguments;
  }
}

function toUsage(raw: Json): LlmUsage {
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);
  const promptTokens = n(raw.prompt_tokens);
  const completionTokens = n(raw.completion_tokens);
  const usage: LlmUsage = { promptTokens, completionTokens, totalTokens: n(raw.total_tokens) || promptTokens + completionTokens };
  // OpenAI names cached prompt tokens in prompt_tokens_details; DeepSeek as prompt_cache_hit_tokens.
  const promptDetails = isObject(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const cached = n(promptDetails.cached_tokens) || n(raw.prompt_cache_hit_tokens);
  if (cached > 0) usage.cachedTokens = cached;
  const completionDetails = isObject(raw.completion_tokens_details) ? raw.completion_tokens_details : {};
  const reasoning = n(completionDetails.reasoning_tokens);
  if (reasoning > 0) usage.reasoningTokens = reasoning;
  return usage;
}
