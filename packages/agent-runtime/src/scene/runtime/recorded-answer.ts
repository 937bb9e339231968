import type { LlmChatResult, LlmStreamChunk, SceneLogEntry } from "@weft/types";

type LlmOutputEntry = Extract<SceneLogEntry, { kind: "llm.output" }>;

/** A recorded model output answered as the provider would have: its chunks, then the result. */
export function recordedAnswer(recorded: Pick<LlmOutputEntry, "text" | "reasoning" | "toolCalls">, onChunk?: (chunk: LlmStreamChunk) => void): LlmChatResult {
  if (recorded.reasoning) onChunk?.({ kind: "reasoning", text: recorded.reasoning });
  if (recorded.text) onChunk?.({ kind: "text", text: recorded.text });
  const toolCalls = recorded.toolCalls ?? [];
  return {
    text: recorded.text,
    ...(recorded.reasoning ? { reasoning: recorded.reasoning } : {}),
    toolCalls,
    finishReason: toolCalls.length > 0 ? "tool_calls" : "stop",
    model: "replay",
    message: {
      role: "assistant",
      content: recorded.text,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      ...(recorded.reasoning ? { reasoning_content: recorded.reasoning } : {}),
    },
  };
}
