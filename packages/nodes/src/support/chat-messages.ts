import { ChatMessageSchema, NodeFailure, type ChatMessage } from "@weft/types";

/**
 * Messages checked before, by object: an agent's context hands the same message objects to every
 * step's LLM call (values passed between nodes are not changed), so only the new ones are checked.
 */
const checked = new WeakMap<object, ChatMessage>();

/** Checks every message of a list against the chat message protocol; a bad one is named by position and field. */
export function readMessages(list: unknown[], where: string): ChatMessage[] {
  return list.map((item, index) => {
    const known = typeof item === "object" && item !== null ? checked.get(item) : undefined;
    if (known) return known;
    const parsed = ChatMessageSchema.safeParse(item);
    if (parsed.success) {
      checked.set(item as object, parsed.data);
      return parsed.data;
    }
    const issue = parsed.error.issues[0];
    const field = issue.path.length ? ` (field "${issue.path.join(".")}")` : "";
    throw new NodeFailure(
      "INVALID_MESSAGE",
      `Message ${index} of ${where} is not a valid chat message${field}: ${issue.message}. A message is {"role": "system"|"user"|"assistant"|"tool", "content": "..."}.`,
      { where, index, issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) },
    );
  });
}
