import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { messageCreate } from "./message-create.ts";

describe("core:message-create", () => {
  it("creates a user message by default", async () => {
    expect(await runNode(messageCreate, { content: "Hi" })).toEqual({ messages: [{ role: "user", content: "Hi" }] });
  });
  it("appends to a connected conversation without changing it", async () => {
    const history = [{ role: "system", content: "Be brief." }];
    const out = await runNode(messageCreate, { content: "Sure.", messages: history }, { role: "assistant" });
    expect(out).toEqual({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "assistant", content: "Sure." },
      ],
    });
    expect(history).toHaveLength(1);
  });
  it("refuses an invalid role, missing content and a malformed history", async () => {
    await expectFailure(runNode(messageCreate, { content: "x" }, { role: "tool" }), "INVALID_CONFIG");
    await expectFailure(runNode(messageCreate, {}), "INVALID_INPUT");
    const failure = await expectFailure(runNode(messageCreate, { content: "x", messages: [{ role: "user", content: 5 }] }), "INVALID_MESSAGE");
    expect(failure.message).toContain('Message 0 of messages is not a valid chat message (field "content")');
  });
});
