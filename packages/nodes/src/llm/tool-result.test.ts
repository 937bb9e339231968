import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { llmToolResult } from "./tool-result.ts";

const call = { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.md"}' } };
const conversation = [
  { role: "user", content: "read a.md" },
  { role: "assistant", content: null, tool_calls: [call] },
];

describe("llm:tool-result", () => {
  it("appends the result as a tool message answering the call", async () => {
    const out = await runNode(llmToolResult, { messages: conversation, toolCall: call, result: { ok: true, content: "hi" } });
    expect(out.message).toEqual({ role: "tool", tool_call_id: "call_1", content: '{"ok":true,"content":"hi"}' });
    expect(out.messages).toEqual([...conversation, out.message]);
    expect(conversation).toHaveLength(2);
  });

  it("takes a bare call id and keeps text results as they are", async () => {
    const out = await runNode(llmToolResult, { toolCallId: "c7", result: "plain text" });
    expect(out.messages).toEqual([{ role: "tool", tool_call_id: "c7", content: "plain text" }]);
  });

  it("says what is missing or malformed", async () => {
    await expectFailure(runNode(llmToolResult, { result: 1 }), "INVALID_INPUT");
    const bad = await expectFailure(runNode(llmToolResult, { toolCall: { name: "x" }, result: 1 }), "INVALID_INPUT");
    expect(bad.message).toContain("not a tool call");
  });
});
