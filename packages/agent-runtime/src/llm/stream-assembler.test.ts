import { describe, expect, it } from "vitest";
import { StreamAssembler } from "./stream-assembler.ts";

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ id: "x1", model: "m", created: 5, choices: [{ index: 0, delta, finish_reason: finish }] });

describe("StreamAssembler", () => {
  it("assembles indexed tool-call deltas, naming calls the provider left without an id", () => {
    const a = new StreamAssembler("call_turn");
    a.push(chunk({ role: "assistant", content: null }));
    a.push(chunk({ tool_calls: [{ index: 0, function: { name: "search", arguments: '{"q":' } }] }));
    a.push(chunk({ tool_calls: [{ index: 1, id: "real_id", function: { name: "open", arguments: "{}" } }] }));
    a.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '"loom"}' } }] }));
    a.push(chunk({}, "tool_calls"));
    expect(a.toolCalls()).toEqual([
      { id: "call_turn_0", type: "function", function: { name: "search", arguments: '{"q":"loom"}' } },
      { id: "real_id", type: "function", function: { name: "open", arguments: "{}" } },
    ]);
    expect(a.finishReason).toBe("tool_calls");
  });

  it("keeps reasoning apart, accepts the `reasoning` spelling, and keeps unknown fields in the raw response", () => {
    const a = new StreamAssembler("c");
    expect(a.push(chunk({ reasoning_content: "think " }))).toEqual({ text: "", reasoning: "think " });
    a.push(chunk({ reasoning: "more" }));
    a.push(chunk({ content: "Answer", provider_note: "n1" }));
    a.push(chunk({ provider_note: "n2" }, "stop"));
    a.push({ id: "x1", choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10, prompt_cache_hit_tokens: 4 } });
    expect(a.text).toBe("Answer");
    expect(a.reasoning).toBe("think more");
    // DeepSeek names cached prompt tokens prompt_cache_hit_tokens.
    expect(a.usage).toEqual({ promptTokens: 7, completionTokens: 3, totalTokens: 10, cachedTokens: 4 });
    expect(a.raw()).toEqual({
      id: "x1",
      model: "m",
      created: 5,
      object: "chat.completion",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Answer", reasoning_content: "think more", provider_note: "n1n2" } }],
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10, prompt_cache_hit_tokens: 4 },
      streamChunks: 5,
    });
  });

  it("ignores chunks that are not chat-completion chunks", () => {
    const a = new StreamAssembler("c");
    a.push("keep-alive");
    a.push({ choices: "nope" });
    expect(a.text).toBe("");
    expect(a.chunks).toBe(2);
    expect(a.finishReason).toBeUndefined();
  });

  it("continues the last tool call with a delta that has no index, and opens a new one for a new id", () => {
    const a = new StreamAssembler("call_x");
    const delta = (tool_calls: unknown[]) => ({ choices: [{ index: 0, delta: { tool_calls } }] });
    a.push(delta([{ id: "c1", type: "function", function: { name: "core_math", arguments: "" } }]));
    a.push(delta([{ function: { arguments: '{"a":6,' } }]));
    a.push(delta([{ function: { arguments: '"b":7}' } }]));
    a.push(delta([{ id: "c2", type: "function", function: { name: "fs_list", arguments: "{}" } }]));
    expect(a.toolCalls()).toEqual([
      { id: "c1", type: "function", function: { name: "core_math", arguments: '{"a":6,"b":7}' } },
      { id: "c2", type: "function", function: { name: "fs_list", arguments: "{}" } },
    ]);
  });
});
