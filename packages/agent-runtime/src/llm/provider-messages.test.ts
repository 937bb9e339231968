import { describe, expect, it } from "vitest";
import type { ChatMessage } from "@weft/types";
import { toProviderMessages } from "./provider-messages.ts";

describe("toProviderMessages", () => {
  const call = { id: "c1", type: "function" as const, function: { name: "f", arguments: "{}" } };

  it("passes messages with nothing to drop as they are, and copies only those it changes", () => {
    const plain: ChatMessage = { role: "assistant", content: "done" };
    const calling: ChatMessage = { role: "assistant", content: null, tool_calls: [call] };
    const empty: ChatMessage = { role: "assistant", content: "x", tool_calls: [] };
    const thinking: ChatMessage = { role: "assistant", content: "y", reasoning_content: "thoughts" };
    const user: ChatMessage = { role: "user", content: "hi" };
    const sent = toProviderMessages([user, plain, calling, empty, thinking], false);
    expect(sent[0]).toBe(user);
    expect(sent[1]).toBe(plain);
    expect(sent[2]).toBe(calling);
    expect(sent[3]).toEqual({ role: "assistant", content: "x" });
    expect(sent[4]).toEqual({ role: "assistant", content: "y" });
    expect(thinking.reasoning_content).toBe("thoughts");
  });

  it("keeps reasoning only on the current turn's assistant messages when the provider needs it back", () => {
    const older: ChatMessage = { role: "assistant", content: "a", reasoning_content: "old" };
    const current: ChatMessage = { role: "assistant", content: null, reasoning_content: "now", tool_calls: [call] };
    const sent = toProviderMessages([older, { role: "user", content: "go" }, current], true);
    expect(sent[0]).toEqual({ role: "assistant", content: "a" });
    expect(sent[2]).toEqual({ role: "assistant", content: null, reasoning_content: "now", tool_calls: [call] });
  });
});
