import type { LlmService } from "@weft/types";

/**
 * An LLM whose first answer is `text`, given without calling the model (a fork's edited LLM output); every later call
 * goes to the model. Streamed to the caller as one chunk, so the chat shows the answer as it shows a live one.
 */
export function givenFirstAnswer(text: string): (llm: LlmService) => LlmService {
  let given = false;
  return (llm) => ({
    chat: async (request, options) => {
      if (given) return llm.chat(request, options);
      given = true;
      options?.onChunk?.({ kind: "text", text });
      return { text, toolCalls: [], finishReason: "stop", model: "(edited in a fork)", message: { role: "assistant", content: text } };
    },
  });
}
