import { defineNode } from "../define-node.ts";
import { readMessages } from "../support/chat-messages.ts";

export const messagesMerge = defineNode(
  {
    type: "core:messages-merge",
    title: "Merge messages",
    description: "Concatenates several chat message lists into one, in connection order (e.g. a system prompt, the history, the new user message).",
    category: "messages",
    inputs: [{ id: "lists", type: "messages", multi: true, required: true, label: "Message lists", description: "The lists to join, in order; empty ones are skipped." }],
    outputs: [
      { id: "messages", type: "messages", label: "Messages", description: "All messages, in order." },
      { id: "count", type: "integer", label: "Count", description: "How many messages." },
    ],
    flags: { idempotent: true },
  },
  (inputs) => {
    const messages = (inputs.lists as unknown[]).flatMap((list, index) => (list === null || list === undefined ? [] : readMessages(list as unknown[], `lists[${index}]`)));
    return { messages, count: messages.length };
  },
);
