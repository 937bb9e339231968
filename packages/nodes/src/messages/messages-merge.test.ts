import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { messagesMerge } from "./messages-merge.ts";

const system = [{ role: "system", content: "s" }];
const history = [
  { role: "user", content: "u1" },
  { role: "assistant", content: "a1" },
];

describe("core:messages-merge", () => {
  it("concatenates the lists in connection order, skipping missing ones", async () => {
    const out = await runNode(messagesMerge, { lists: [system, null, history, []] });
    expect(out).toEqual({ messages: [...system, ...history], count: 3 });
  });
  it("names the list and message that break the protocol", async () => {
    const failure = await expectFailure(runNode(messagesMerge, { lists: [system, [{ role: "assistant" }]] }), "INVALID_MESSAGE");
    expect(failure.message).toContain("Message 0 of lists[1]");
  });
  it("refuses a list that is not messages", async () => {
    await expectFailure(runNode(messagesMerge, { lists: [["text"]] }), "INVALID_INPUT");
    await expectFailure(runNode(messagesMerge, {}), "INVALID_INPUT");
  });
});
