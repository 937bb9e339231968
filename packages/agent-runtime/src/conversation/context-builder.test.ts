import { describe, expect, it } from "vitest";
import type { ChatMessage, ConversationMessage, ToolCall } from "@weft/types";
import { buildContext } from "./context-builder.ts";
import { assistantMessage, llmErrorMessage, toolResultMessage, userMessage } from "./messages.ts";
import { RunContextMissingError } from "./system-prefix.ts";

const call = (id: string, name = "read_file", args = "{}"): ToolCall => ({ id, type: "function", function: { name, arguments: args } });
const at = (n: number) => ({ id: `m${n}`, createdAt: new Date(1_700_000_000_000 + n).toISOString() });
const history = (msgs: ConversationMessage[]) => msgs;
const withoutPrefix = (messages: ChatMessage[], prefixCount: number) => messages.slice(prefixCount);

describe("buildContext", () => {
  const log = history([
    userMessage("Read the notes", at(1)),
    assistantMessage({ text: "", toolCalls: [call("c1"), call("c2", "list_dir")] }, at(2)),
    toolResultMessage({ toolCallId: "c1", result: { ok: true, content: "notes" }, toolName: "read_file" }, at(3)),
    toolResultMessage({ toolCallId: "c2", result: { ok: true, entries: ["a"] } }, at(4)),
    assistantMessage({ text: "The notes say hi.", toolCalls: [] }, at(5)),
    userMessage("Thanks. And now?", at(6)),
  ]);

  it("sends the whole protocol-complete history when it fits, in order", () => {
    const { messages, debug } = buildContext({ mode: "chat", history: log });
    expect(withoutPrefix(messages, debug.prefixMessages)).toEqual([
      { role: "user", content: "Read the notes" },
      { role: "assistant", content: null, tool_calls: [call("c1"), call("c2", "list_dir")] },
      { role: "tool", tool_call_id: "c1", content: '{"ok":true,"content":"notes"}' },
      { role: "tool", tool_call_id: "c2", content: '{"ok":true,"entries":["a"]}' },
      { role: "assistant", content: "The notes say hi." },
      { role: "user", content: "Thanks. And now?" },
    ]);
    expect(debug.keptIds).toEqual(["m1", "m2", "m3", "m4", "m5", "m6"]);
    expect(debug.droppedIds).toEqual([]);
    expect(debug.limitedBy).toBeUndefined();
    expect(debug.estimatedTokens).toBeGreaterThan(debug.historyEstimatedTokens);
  });

  it("trims oldest first without splitting a tool-call group", () => {
    const { messages, debug } = buildContext({ mode: "chat", history: log, budget: { maxMessages: 4 } });
    // The 4-message group does not fit beside the two newest messages, so it goes whole.
    expect(withoutPrefix(messages, debug.prefixMessages)).toEqual([
      { role: "assistant", content: "The notes say hi." },
      { role: "user", content: "Thanks. And now?" },
    ]);
    expect(debug.droppedIds).toEqual(["m1", "m2", "m3", "m4"]);
    expect(debug.limitedBy).toBe("maxMessages");
  });

  it("always keeps the latest user message, even before the window", () => {
    const long = history([userMessage("Do the long task", at(1)), ...Array.from({ length: 10 }, (_, i) => assistantMessage({ text: `step ${i}`, toolCalls: [] }, at(2 + i)))]);
    const { messages, debug } = buildContext({ mode: "agent", history: long, budget: { maxMessages: 3 } });
    expect(withoutPrefix(messages, debug.prefixMessages).map((m) => m.content)).toEqual(["Do the long task", "step 7", "step 8", "step 9"]);
    expect(debug.pinnedLatestUserId).toBe("m1");

    const huge = buildContext({ mode: "chat", history: [userMessage("x".repeat(5_000), at(1))], budget: { maxChars: 100 } });
    expect(withoutPrefix(huge.messages, huge.debug.prefixMessages)).toHaveLength(1);
    expect(huge.debug.keptIds).toEqual(["m1"]);
  });

  it("gives a call without a result a synthetic aborted result and never sends an orphan result", () => {
    const broken = history([
      toolResultMessage({ toolCallId: "ghost", result: "from nowhere" }, at(1)),
      userMessage("go", at(2)),
      assistantMessage({ text: "", toolCalls: [call("c1"), call("c2", "write_file")] }, at(3)),
      toolResultMessage({ toolCallId: "c1", result: "first" }, at(4)),
    ]);
    const { messages, debug } = buildContext({ mode: "chat", history: broken });
    const sent = withoutPrefix(messages, debug.prefixMessages);
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool"]);
    expect(sent[3]).toMatchObject({ role: "tool", tool_call_id: "c2" });
    expect(JSON.parse(sent[3].content as string)).toMatchObject({ ok: false, error: { code: "E_ABORTED" } });
    expect(sent.some((m) => m.content === "from nowhere")).toBe(false);
    expect(debug.orphanToolResultIds).toEqual(["m1"]);
    expect(debug.syntheticToolResultCallIds).toEqual(["c2"]);
  });

  it("moves results that arrived after an interleaved message back behind their call", () => {
    const interleaved = history([
      userMessage("start", at(1)),
      assistantMessage({ text: "", toolCalls: [call("c1")] }, at(2)),
      userMessage("hurry up", at(3)),
      toolResultMessage({ toolCallId: "c1", result: "done" }, at(4)),
    ]);
    const { messages, debug } = buildContext({ mode: "chat", history: interleaved });
    expect(withoutPrefix(messages, debug.prefixMessages).map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
  });

  it("shows an LLM failure with its partial output so a retry can continue", () => {
    const failed = history([
      userMessage("Write a poem", at(1)),
      llmErrorMessage({ code: "TIMEOUT", message: "No response within 30000 ms.", hint: "Raise the timeout.", partialText: "Roses are" }, at(2)),
      userMessage("continue", at(3)),
    ]);
    const { messages, debug } = buildContext({ mode: "chat", history: failed });
    const sent = withoutPrefix(messages, debug.prefixMessages);
    expect(sent[1].role).toBe("assistant");
    expect(sent[1].content).toMatch(/^Roses are\n\nLLM_ERROR\n- code: TIMEOUT\n- message: No response within 30000 ms\.\n- partialOutput: /);
  });

  it("sends large tool outputs as a preview plus the path of the full output", () => {
    const big = "line of output\n".repeat(1_000);
    const stored = { ...toolResultMessage({ toolCallId: "c1", result: big }, at(3)), fullOutputPath: "@state/logs/tool-results/c1.txt" };
    const unstored = toolResultMessage({ toolCallId: "c2", result: big }, at(4));
    const log2 = history([userMessage("dump", at(1)), assistantMessage({ text: "", toolCalls: [call("c1"), call("c2")] }, at(2)), stored, unstored]);
    const { messages, debug } = buildContext({ mode: "chat", history: log2, budget: { toolOutputThresholdChars: 1_000, toolOutputPreviewChars: 100 } });
    const [first, second] = messages.filter((m) => m.role === "tool").map((m) => m.content as string);
    expect(first.startsWith(`TOOL_RESULT_PREVIEW (first 100 of ${big.length} characters)\n${big.slice(0, 100)}`)).toBe(true);
    expect(first).toContain("Full output: @state/logs/tool-results/c1.txt");
    expect(second).toContain("were not stored");
    expect(first.length).toBeLessThan(400);
    expect(debug.previewedToolResultIds).toEqual(["m3", "m4"]);
  });

  it("leaves out UI-only entries and system notices", () => {
    const ui = history([
      userMessage("hi", at(1)),
      { ...at(2), role: "system", content: "Switched to agent mode" },
      { ...assistantMessage({ text: "widget", toolCalls: [] }, at(3)), includeInContext: false },
    ]);
    const { messages, debug } = buildContext({ mode: "chat", history: ui });
    expect(withoutPrefix(messages, debug.prefixMessages)).toEqual([{ role: "user", content: "hi" }]);
    expect(debug.excludedMessages).toBe(2);
  });

  it("changes only the system prefix when the mode changes; chat never carries the persona", () => {
    const persona = "You are Mira, the innkeeper.";
    const runContext = { workflow: "wf-1", state: "@state/workflow.md", node: { currentNodeId: "step-01", allowedNext: [{ nodeId: "step-02", label: "next" }] } };
    const chat = buildContext({ mode: "chat", history: log, persona, budget: { maxMessages: 3 } });
    const agent = buildContext({ mode: "agent", history: log, persona, budget: { maxMessages: 3 } });
    const run = buildContext({ mode: "run", history: log, persona, runContext, budget: { maxMessages: 3 } });

    expect(withoutPrefix(agent.messages, agent.debug.prefixMessages)).toEqual(withoutPrefix(chat.messages, chat.debug.prefixMessages));
    expect(withoutPrefix(run.messages, run.debug.prefixMessages)).toEqual(withoutPrefix(chat.messages, chat.debug.prefixMessages));
    const prefixText = (r: typeof chat) =>
      r.messages
        .slice(0, r.debug.prefixMessages)
        .map((m) => m.content)
        .join("\n---\n");
    expect(prefixText(chat)).not.toContain(persona);
    expect(prefixText(chat)).toContain("MODE\n- active: chat\n");
    expect(prefixText(agent)).toContain(persona);
    expect(prefixText(agent)).toContain("- active: agent");
    expect(prefixText(run)).toContain(persona);
    expect(
      run.messages
        .slice(0, run.debug.prefixMessages)
        .filter((m) => m.role === "user")
        .map((m) => m.content),
    ).toEqual([
      "RUN_DIRECTIVE\n- runType: weft-workflow\n- intent: start\n- workflow: wf-1\n- state: @state/workflow.md\n- currentNodeId: step-01",
      "NODE_BRIEF\n- currentNodeId: step-01\n- allowedNext:\n  - step-02 (label=next)",
    ]);
    expect(() => buildContext({ mode: "run", history: log })).toThrow(RunContextMissingError);
  });

  it("passes reasoning back only when asked, and respects a token budget", () => {
    const reasoning = history([userMessage("q", at(1)), { ...assistantMessage({ text: "a", toolCalls: [], reasoning: "because" }, at(2)) }]);
    const plain = buildContext({ mode: "chat", history: reasoning });
    expect(plain.messages.at(-1)).toEqual({ role: "assistant", content: "a" });
    const passed = buildContext({ mode: "chat", history: reasoning, passBackReasoning: true });
    expect(passed.messages.at(-1)).toEqual({ role: "assistant", content: "a", reasoning_content: "because" });

    const wordy = history(Array.from({ length: 20 }, (_, i) => userMessage("word ".repeat(40), at(i))));
    const { debug } = buildContext({ mode: "chat", history: wordy, budget: { maxTokens: 200 } });
    expect(debug.limitedBy).toBe("maxTokens");
    expect(debug.historyEstimatedTokens).toBeLessThanOrEqual(200);
    expect(debug.keptMessages).toBe(3);
  });
});
