import type { ConversationForkChanges } from "@weft/types";

/** What a conversation's fork changed, in words (the fork banner and the forks' tooltips). */
export function forkChangeSummary(changes: ConversationForkChanges | undefined): string {
  const parts = [
    ...(changes?.observation !== undefined ? ["observation edited"] : []),
    ...(changes?.llmOutput !== undefined ? ["LLM output edited"] : []),
    ...(changes?.agentVersion !== undefined ? [`agent version ${changes.agentVersion}`] : []),
  ];
  return parts.length > 0 ? parts.join(", ") : "nothing changed: the steps after it ran again";
}
