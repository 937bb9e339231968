import { ChatMessageSchema, type ChatMessage } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { readMessages } from "../support/chat-messages.ts";

export const messageCreate = defineNode(
  {
    type: "core:message-create",
    title: "Chat message",
    description: "Creates one chat message (system, user or assistant) from a text and appends it to a message list (an empty one when none is connected), giving the list to pass to an LLM.",
    category: "messages",
    inputs: [
      { id: "content", type: "string", required: true, multiline: true, label: "Content", description: "The message text." },
      { id: "messages", type: "messages", label: "Messages", description: "The conversation to append to; a new list when not given." },
    ],
    outputs: [{ id: "messages", type: "messages", label: "Messages", description: "The list with the new message at the end." }],
    config: [{ id: "role", kind: "select", options: ["system", "user", "assistant"], default: "user", label: "Role", description: "Who says it." }],
    flags: { idempotent: true },
  },
  (inputs, ctx) => {
    const before = inputs.messages === undefined ? [] : readMessages(inputs.messages as unknown[], "messages");
    const message: ChatMessage = ChatMessageSchema.parse({ role: ctx.config.role, content: inputs.content });
    return { messages: [...before, message] };
  },
);
