import { describe, expect, it } from "vitest";
import { NumberedStore } from "../../conversation/testing/numbered-store.ts";
import { conversationHistory } from "../../conversation/conversation-history.ts";
import { userMessage } from "../../conversation/messages.ts";
import { DeliberationRecord, type DeliberationSinks } from "./deliberation-record.ts";

const sinks: DeliberationSinks = { output: () => undefined, action: () => undefined, commit: (work) => work(), warn: () => undefined };
const say = (text: string) => userMessage(text, { mode: "agent" });

describe("a deliberation's conversation store", () => {
  it("keeps the incremental reads of a numbered store across deliberations (each wraps the store anew)", async () => {
    const store = new NumberedStore();
    await store.create({ id: "c" });
    await store.append("c", [say("one"), say("two")]);
    expect((await conversationHistory(new DeliberationRecord(undefined, sinks).conversations(store), "c")).length).toBe(2);
    const before = store.handedOut;

    const next = new DeliberationRecord(undefined, sinks).conversations(store);
    await next.append("c", [say("three")]);
    expect((await conversationHistory(next, "c")).map((m) => m.content)).toEqual(["one", "two", "three"]);
    expect(store.handedOut - before).toBe(1);
  });
});
