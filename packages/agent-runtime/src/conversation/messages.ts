import type {
  AgentStepTrace,
  ChatMessage,
  ConversationAssistantMessage,
  ConversationMessage,
  ConversationMode,
  ConversationToolMessage,
  ConversationUserMessage,
  LlmChatResult,
  LlmErrorInfo,
} from "@weft/types";

/** Where and when an entry was made; `id` and `createdAt` are generated when absent. */
export interface MessageMeta {
  id?: string;
  createdAt?: string;
  mode?: ConversationMode;
  runId?: string;
  workflowId?: string;
  agentId?: string;
  includeInContext?: boolean;
}

/**
 * Entries made by the constructors below: typed, so they fit the schema, and a store's check
 * (`validateMessages`) skips them. An agent appends two or three per step, and checking a step's
 * trace against the schema again was a tenth of what storing the step cost.
 */
const made = new WeakSet<object>();

function mark<T extends ConversationMessage>(entry: T): T {
  made.add(entry);
  return entry;
}

/** Whether this object was made by one of this module's constructors. */
export function isMadeEntry(value: unknown): value is ConversationMessage {
  return typeof value === "object" && value !== null && made.has(value);
}

function base(meta: MessageMeta) {
  const { id, createdAt, ...rest } = meta;
  const out: { id: string; createdAt: string } & Omit<MessageMeta, "id" | "createdAt"> = {
    id: id ?? crypto.randomUUID(),
    createdAt: createdAt ?? new Date().toISOString(),
  };
  for (const [key, value] of Object.entries(rest)) if (value !== undefined) Object.assign(out, { [key]: value });
  return out;
}

export function userMessage(content: string, meta: MessageMeta = {}): ConversationUserMessage {
  return mark({ ...base(meta), role: "user", content });
}

/** The assistant entry for a successful LLM call (text and/or tool_calls, reasoning kept apart). */
export function assistantMessage(result: Pick<LlmChatResult, "text" | "toolCalls" | "reasoning" | "turn">, meta: MessageMeta = {}): ConversationAssistantMessage {
  const out: ConversationAssistantMessage = {
    ...base(meta),
    role: "assistant",
    content: result.text === "" && result.toolCalls.length > 0 ? null : result.text,
  };
  if (result.toolCalls.length > 0) out.tool_calls = result.toolCalls;
  if (result.reasoning) out.reasoning_content = result.reasoning;
  if (result.turn) out.turnId = result.turn.id;
  return mark(out);
}

/** A tool result (seed 000 §7): objects are stored as their JSON text. */
export function toolResultMessage(input: { toolCallId: string; result: unknown; toolName?: string; durationMs?: number }, meta: MessageMeta = {}): ConversationToolMessage {
  const out: ConversationToolMessage = {
    ...base(meta),
    role: "tool",
    tool_call_id: input.toolCallId,
    content: typeof input.result === "string" ? input.result : JSON.stringify(input.result),
  };
  if (input.toolName !== undefined) out.toolName = input.toolName;
  if (input.durationMs !== undefined) out.durationMs = input.durationMs;
  return mark(out);
}

/**
 * A failed LLM call as an assistant entry (seed 003 §4.3.4): the partial text stays the content,
 * the error is kept structured, and the next request shows both so "continue" resumes from it.
 */
export function llmErrorMessage(error: LlmErrorInfo, meta: MessageMeta = {}): ConversationAssistantMessage {
  const { partialText, partialReasoning, ...llmError } = error;
  const out: ConversationAssistantMessage = { ...base(meta), role: "assistant", content: partialText ?? "", llmError };
  if (partialReasoning) out.reasoning_content = partialReasoning;
  return mark(out);
}

/** The assistant entry of an agent step, with the step's trace. */
export function withStepTrace(entry: ConversationAssistantMessage, trace: AgentStepTrace): ConversationAssistantMessage {
  return mark({ ...entry, agentStep: trace });
}

export function formatLlmErrorBlock(error: NonNullable<ConversationAssistantMessage["llmError"]>, hadPartialText: boolean): string {
  return [
    "LLM_ERROR",
    `- code: ${error.code}`,
    `- message: ${error.message}`,
    ...(hadPartialText ? ["- partialOutput: the text above was cut off by this error; continue from where it stops"] : []),
  ].join("\n");
}

export interface ToChatOptions {
  passBackReasoning?: boolean;
  /** Tool results longer than this become a preview (see `previewToolOutput`). */
  toolOutputThresholdChars?: number;
  toolOutputPreviewChars?: number;
}

/**
 * One log entry as the OpenAI message it stands for; deterministic. A failed call's partial text
 * is followed by its `LLM_ERROR` block; large tool results become a preview plus the path of the
 * full output.
 */
export function toChatMessage(message: ConversationMessage, options: ToChatOptions = {}): ChatMessage {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "assistant": {
      let content = message.content;
      if (message.llmError) {
        const partial = content ?? "";
        const block = formatLlmErrorBlock(message.llmError, partial !== "");
        content = partial === "" ? block : `${partial}\n\n${block}`;
      }
      const out: ChatMessage = { role: "assistant", content };
      if (message.tool_calls && message.tool_calls.length > 0) out.tool_calls = message.tool_calls;
      if (options.passBackReasoning && message.reasoning_content) out.reasoning_content = message.reasoning_content;
      return out;
    }
    case "tool": {
      const threshold = options.toolOutputThresholdChars ?? Infinity;
      const content = message.content.length > threshold ? previewToolOutput(message, options.toolOutputPreviewChars ?? 1_500) : message.content;
      return { role: "tool", tool_call_id: message.tool_call_id, content };
    }
    default: {
      const never: never = message;
      return never;
    }
  }
}

/** Seed 003 "Tool output strategy": the start of the output and where the model can read the rest. */
export function previewToolOutput(message: ConversationToolMessage, previewChars: number): string {
  const total = message.content.length;
  const where = message.fullOutputPath
    ? `Full output: ${message.fullOutputPath} (read it with the file tools when you need more).`
    : `The remaining ${total - previewChars} characters were not stored; run the tool again with a narrower request if you need them.`;
  return `TOOL_RESULT_PREVIEW (first ${previewChars} of ${total} characters)\n${message.content.slice(0, previewChars)}\n…\n${where}`;
}
