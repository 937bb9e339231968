import { NodeFailure, ToolCallSchema, type ChatMessage, type NodeValues } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { readMessages } from "../support/chat-messages.ts";

export const llmToolResult = defineNode(
  {
    type: "llm:tool-result",
    title: "Tool result message",
    description:
      "Answers a tool call in a conversation: appends a `tool` message carrying the result and the call's id (seed protocol: every assistant tool call needs its result right after it, before the next LLM request). Objects are sent as JSON.",
    category: "llm",
    inputs: [
      { id: "messages", type: "messages", label: "Messages", description: "The conversation ending with the assistant's tool calls." },
      {
        id: "toolCall",
        type: "json",
        label: "Tool call",
        description: 'The call being answered, e.g. one item of llm:chat\'s toolCalls: {"id", "type": "function", "function": {"name", "arguments"}}.',
      },
      { id: "toolCallId", type: "string", label: "Tool call id", description: "The id of the call being answered, when `toolCall` is not connected." },
      { id: "result", type: "any", required: true, label: "Result", description: "What the tool returned." },
    ],
    outputs: [
      { id: "messages", type: "messages", label: "Messages", description: "The conversation with the tool message appended." },
      { id: "message", type: "json", label: "Tool message", description: '{"role": "tool", "tool_call_id", "content"}.' },
    ],
    flags: { idempotent: true },
  },
  (inputs: NodeValues) => {
    const before = inputs.messages === undefined ? [] : readMessages(inputs.messages as unknown[], "messages");
    const id = callId(inputs);
    const result = inputs.result;
    const message: ChatMessage = { role: "tool", tool_call_id: id, content: typeof result === "string" ? result : JSON.stringify(result ?? null) };
    return { messages: [...before, message], message };
  },
);

function callId(inputs: NodeValues): string {
  if (inputs.toolCall !== undefined && inputs.toolCall !== null) {
    const parsed = ToolCallSchema.safeParse(inputs.toolCall);
    if (!parsed.success) {
      throw new NodeFailure(
        "INVALID_INPUT",
        `Input "toolCall" of llm:tool-result is not a tool call (at ${parsed.error.issues[0].path.join(".") || "(root)"}: ${parsed.error.issues[0].message}); connect one item of llm:chat's toolCalls.`,
        { port: "toolCall" },
      );
    }
    return parsed.data.id;
  }
  if (typeof inputs.toolCallId === "string" && inputs.toolCallId !== "") return inputs.toolCallId;
  throw new NodeFailure("INVALID_INPUT", "llm:tool-result needs the call it answers: connect `toolCall` or set `toolCallId`.", { port: "toolCallId" });
}
