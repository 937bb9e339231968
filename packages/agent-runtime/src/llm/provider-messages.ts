import type { ChatMessage } from "@weft/types";

/**
 * The messages exactly as they go to the provider. `reasoning_content` is never content: it is
 * dropped, except — when the provider requires it (`passBackReasoning`, DeepSeek thinking mode,
 * seed 000 §8) — on the assistant messages of the current turn, i.e. after the latest user
 * message, where the model is still working through tool calls. Older reasoning is not needed
 * and some providers reject it.
 */
export function toProviderMessages(messages: readonly ChatMessage[], passBackReasoning: boolean): ChatMessage[] {
  let currentTurnStart = 0;
  if (passBackReasoning) {
    for (let i = messages.length - 1; i >= 0; i--) {
      if (messages[i].role === "user") {
        currentTurnStart = i + 1;
        break;
      }
    }
  }
  return messages.map((message, index) => {
    // Nothing to drop: the message as it is (a history of assistant messages was copied whole at every request).
    if (message.role !== "assistant" || (message.reasoning_content === undefined && (message.tool_calls === undefined || message.tool_calls.length > 0))) return message;
    const { reasoning_content, tool_calls, ...rest } = message;
    const out: ChatMessage = { ...rest };
    if (tool_calls && tool_calls.length > 0) out.tool_calls = tool_calls;
    if (passBackReasoning && index >= currentTurnStart && reasoning_content) out.reasoning_content = reasoning_content;
    return out;
  });
}
