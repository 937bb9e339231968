import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CreateMessageResultSchema, type SamplingMessage } from "@modelcontextprotocol/sdk/types.js";
import { LlmError, messageOf, type LlmChatRequest } from "@weft/types";
import type { McpExtra } from "./mcp-caller.ts";

/** The longest answer taken from a client's model; a longer one fails the node (BAD_RESPONSE) rather than flooding the run. */
export const MAX_SAMPLED_CHARS = 200_000;
/** `maxTokens` is required by sampling: what is asked when the node sets none. */
export const DEFAULT_SAMPLING_MAX_TOKENS = 4_096;
/** How long a client (and the person approving the request in it) has to answer. */
export const SAMPLING_TIMEOUT_MS = 10 * 60_000;

/** What a run's LLM nodes may ask the calling client's model (the runtime's `CallerModelLlm`), wired in by the composition. */
export interface McpCallerModels {
  offer(runId: string, sampler: (request: LlmChatRequest, signal: AbortSignal | undefined) => Promise<{ text: string; model: string; finishReason: string }>): () => void;
}

/** Whether the client that made this call said it answers `sampling/createMessage`. */
export function offersSampling(server: Server): boolean {
  return server.getClientCapabilities()?.sampling !== undefined;
}

const HINT = "The MCP client's model answered with an error or not at all; check the client (it may ask a person to approve each request), or let the node use an LLM profile.";

/** Sampling's finish reasons in the OpenAI terms a node reports. */
function finishReason(stopReason: string | undefined): string {
  switch (stopReason) {
    case undefined:
    case "endTurn":
    case "stopSequence":
      return "stop";
    case "maxTokens":
      return "length";
    default:
      return stopReason;
  }
}

/**
 * A sampler asking this call's client (`sampling/createMessage` on the call's own stream): the system messages as the
 * system prompt, the user and assistant turns as text messages. A text answer of at most `MAX_SAMPLED_CHARS` is the
 * node's answer; anything else fails it. `CallerModelLlm` sends only conversations without tools.
 */
export function clientSampler(extra: McpExtra) {
  return async (request: LlmChatRequest, signal: AbortSignal | undefined): Promise<{ text: string; model: string; finishReason: string }> => {
    const system = request.messages.flatMap((m) => (m.role === "system" ? [m.content] : [])).join("\n\n");
    const messages: SamplingMessage[] = request.messages.flatMap((m) =>
      (m.role === "user" || m.role === "assistant") && m.content ? [{ role: m.role, content: { type: "text" as const, text: m.content } }] : [],
    );
    const params = {
      messages,
      maxTokens: request.maxTokens ?? DEFAULT_SAMPLING_MAX_TOKENS,
      ...(system !== "" ? { systemPrompt: system } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.model !== undefined ? { modelPreferences: { hints: [{ name: request.model }] } } : {}),
    };
    let result;
    try {
      result = await extra.sendRequest({ method: "sampling/createMessage", params }, CreateMessageResultSchema, {
        timeout: SAMPLING_TIMEOUT_MS,
        signal: signal ? AbortSignal.any([signal, extra.signal]) : extra.signal,
      });
    } catch (error) {
      if (signal?.aborted || extra.signal.aborted) throw new LlmError({ code: "CANCELLED", message: "The call to the MCP client's model was cancelled.", hint: HINT });
      throw new LlmError({ code: "PROVIDER_ERROR", message: `The MCP client's model did not answer: ${messageOf(error)}`, hint: HINT });
    }
    if (result.content.type !== "text") {
      throw new LlmError({ code: "BAD_RESPONSE", message: `The MCP client's model answered with ${result.content.type} content; an LLM node takes text.`, hint: HINT });
    }
    if (result.content.text.length > MAX_SAMPLED_CHARS) {
      throw new LlmError({
        code: "BAD_RESPONSE",
        message: `The MCP client's model answered with ${result.content.text.length} characters; at most ${MAX_SAMPLED_CHARS} are taken. Set the node's max tokens lower.`,
        hint: HINT,
      });
    }
    return { text: result.content.text, model: result.model, finishReason: finishReason(result.stopReason) };
  };
}
