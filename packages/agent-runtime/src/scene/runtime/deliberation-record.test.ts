import { describe, expect, it } from "vitest";
import type { ConversationMessage } from "@weft/types";
import { conversationHistory, type NumberedConversationStore } from "../../conversation/conversation-history.ts";
import { InMemoryConversationStore } from "../../conversation/conversation-store.ts";
import { userMessage } from "../../conversation/messages.ts";
import { DeliberationRecord, type DeliberationSinks } from "./deliberation-record.ts";

/** A store numbered as the backend's repositories are, counting the messages its reads hand out. */
class NumberedStore extends InMemoryConversationStore implements NumberedConversationStore {
  handedOut = 0;

  override async messages(conversationId: string): Promise<ConversationMessage[]> {
    const all = await super.messages(conversationId);
    this.handedOut += all.length;
    return all;
  }

  async messagesAfter(conversationId: string, afterSeq: number): Promise<Array<{ seq: number; message: ConversationMessage }>> {
    const after = (await super.messages(conversationId)).map((message, seq) => ({ seq, message })).filter((m) => m.seq > afterSeq);
    this.handedOut += after.length;
    return after;
  }
}

const sinks: DeliberationSinks = { output: () => undefined, action: () => undefined, commit: () => undefined, warn: () => undefined };
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
