import type { LlmCaller, LlmService } from "@weft/types";

/**
 * The LLM service naming `caller` on every call's usage record, under what the call itself names (a node's run and
 * invocation): an agent adds its conversation, a scene its id.
 */
export function withLlmCaller(llm: LlmService, caller: LlmCaller): LlmService {
  return { chat: (request, options = {}) => llm.chat(request, { ...options, caller: { ...caller, ...options.caller } }) };
}
