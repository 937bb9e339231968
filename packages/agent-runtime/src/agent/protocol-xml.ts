import type { ConversationMessage } from "@weft/types";
import { jsonCallError, parseAction, quotedActionError, type CallResult, type ErrorResult, type Manifest } from "../action/index.ts";
import { userMessage, type MessageMeta } from "../conversation/index.ts";
import type { LlmOutput } from "./deliberation.ts";
import type { AgentProtocolAdapter, ObservationEntry, PlannedAction, ReadOutput } from "./protocol.ts";

/**
 * The `<ACTION>` protocol (seed 004): the output's text is parsed (at most one action per turn),
 * and each observation comes back as a user message that starts with `Observation:`. Native tool
 * calls a model sends anyway are not part of this protocol and are ignored.
 */
export const xmlProtocol: AgentProtocolAdapter = {
  read(output: LlmOutput, manifest: Manifest): ReadOutput {
    const parsed = parseAction(output.text, manifest);
    switch (parsed.kind) {
      case "text": {
        const refusal = quotedActionError(parsed) ?? jsonCallError(parsed.responseText, manifest);
        if (refusal) return { responseText: parsed.responseText, notes: parsed.notes, actions: [{ parsed: refusal }], callAsText: true };
        return { responseText: parsed.responseText, notes: parsed.notes, actions: [], callAsText: false };
      }
      case "call":
      case "error":
        return { responseText: parsed.responseText, notes: [], ...afterAction(output.text, parsed), callAsText: false };
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

/**
 * The turn ends at `</ACTION>` (seed 004 §3.1.1): what a model writes after it — often an invented
 * "Observation: …" — never reaches the next request, and the model is told it was dropped. The note
 * does not quote that text: quoting it would put the invented result back into the model's context.
 */
function afterAction(text: string, parsed: CallResult | ErrorResult): { actions: PlannedAction[]; keptText?: string } {
  if (parsed.actionEnd === undefined || parsed.trailingText === "") return { actions: [{ parsed }] };
  const note = "Note: the text you wrote after </ACTION> was dropped from the conversation; only the Observation above is real. Stop writing after </ACTION> and wait for the Observation.";
  return { actions: [{ parsed, note }], keptText: text.slice(0, parsed.actionEnd) };
}
