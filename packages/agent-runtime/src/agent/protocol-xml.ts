import type { ConversationMessage } from "@weft/types";
import { parseAction, type Manifest } from "../action/index.ts";
import { userMessage, type MessageMeta } from "../conversation/index.ts";
import type { LlmOutput } from "./deliberation.ts";
import type { AgentProtocolAdapter, ObservationEntry, ReadOutput } from "./protocol.ts";

/**
 * The `<ACTION>` protocol (seed 004): the output's text is parsed (at most one action per turn),
 * and each observation comes back as a user message that starts with `Observation:`. Native tool
 * calls a model sends anyway are not part of this protocol and are ignored.
 */
export const xmlProtocol: AgentProtocolAdapter = {
  read(output: LlmOutput, manifest: Manifest): ReadOutput {
    const parsed = parseAction(output.text, manifest);
    switch (parsed.kind) {
      case "text":
        return { responseText: parsed.responseText, notes: parsed.notes, actions: [] };
      case "call":
        return { responseText: parsed.responseText, notes: [], actions: [{ parsed }] };
      case "error":
        return { responseText: parsed.responseText, notes: [], actions: [{ parsed }] };
      default: {
        const never: never = parsed;
        return never;
      }
    }
  },

  observationEntries(observations: readonly ObservationEntry[], meta: MessageMeta): ConversationMessage[] {
    return observations.map((o) => userMessage(o.observation, { ...meta, ...(o.runId ? { runId: o.runId } : {}) }));
  },
};
