import { describe, expect, it } from "vitest";
import { NodeFailure } from "@weft/types";
import { readMessages } from "./chat-messages.ts";

describe("readMessages", () => {
  it("accepts protocol-complete messages", () => {
    const list = [
      { role: "system", content: "be brief" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: "ok" },
    ];
    expect(readMessages(list, "messages")).toEqual(list);
  });

  it("names the message and the field that is wrong", () => {
    let failure: unknown;
    try {
      readMessages(
        [
          { role: "user", content: "a" },
          { role: "tool", content: "x" },
        ],
        "lists[1]",
      );
    } catch (e) {
      failure = e;
    }
    expect(failure).toBeInstanceOf(NodeFailure);
    expect((failure as NodeFailure).code).toBe("INVALID_MESSAGE");
    expect((failure as NodeFailure).message).toMatch(/^Message 1 of lists\[1\] is not a valid chat message \(field "tool_call_id"\)/);
  });
});
