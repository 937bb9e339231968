import type { ConversationMessage } from "@weft/types";
import { callAsTextError, parseToolCallArguments, type Manifest } from "../action/index.ts";
import { toolResultMessage, userMessage, type MessageMeta } from "../conversation/index.ts";
import type { LlmOutput } from "./deliberation.ts";
import type { AgentProtocolAdapter, ObservationEntry, ReadOutput } from "./protocol.ts";

/**
 * Native OpenAI tool calls (seed 000 §3): every call of the assistant message is checked like an
 * `<ACTION>` and gets exactly one `role: tool` result carrying its `tool_call_id`; the context
 * builder sends them right after the assistant message, in call order.
 */
export const nativeProtocol: AgentProtocolAdapter = {
  read(output: LlmOutput, manifest: Manifest): ReadOutput {
    if (output.toolCalls.length === 0) {
      const refusal = callAsTextError(output.text, manifest);
      return { responseText: output.text, notes: [], actions: refusal ? [{ parsed: refusal }] : [], callAsText: refusal !== undefined };
    }
    return {
      responseText: output.text,
      notes: [],
      actions: output.toolCalls.map((call) => ({ callId: call.id, parsed: parseToolCallArguments(call, manifest) })),
      callAsText: false,
    };
  },

  observationEntries(observations: readonly ObservationEntry[], meta: MessageMeta): ConversationMessage[] {
    return observations.map((o) => {
      const entryMeta = { ...meta, ...(o.runId ? { runId: o.runId } : {}) };
      // A mistake without a call (an empty reply) has no tool_call_id to answer.
      if (o.callId === undefined) return userMessage(o.observation, entryMeta);
      const message = toolResultMessage(
        { toolCallId: o.callId, result: o.observation, toolName: o.toolName, ...(o.durationMs !== undefined ? { durationMs: Math.round(o.durationMs) } : {}) },
        entryMeta,
      );
      return o.fullResultRef ? { ...message, fullOutputPath: o.fullResultRef } : message;
    });
  },
};
