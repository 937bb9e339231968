import { describe, expect, it } from "vitest";
import { NumberedStore } from "./testing/numbered-store.ts";
import { conversationHistory, type NumberedConversationStore } from "./conversation-history.ts";
import { InMemoryConversationStore } from "./conversation-store.ts";
import { userMessage } from "./messages.ts";

const say = (text: string) => userMessage(text, { mode: "agent" });

describe("conversationHistory", () => {
  it("gives the log as messages() does, reading only what was appended since its last read", async () => {
    const store = new NumberedStore();
    await store.create({ id: "c" });
    await store.append("c", [say("one"), say("two")]);
    expect((await conversationHistory(store, "c")).map((m) => m.content)).toEqual(["one", "two"]);
    const before = store.handedOut;

    await store.append("c", [say("three")]);
    const history = await conversationHistory(store, "c");
    expect(history.map((m) => m.content)).toEqual(["one", "two", "three"]);
    expect(store.handedOut - before).toBe(1);

    // Nothing new: nothing read; and what a caller does to the list it got does not change the next one.
    history.pop();
    const again = await conversationHistory(store, "c");
    expect(again.map((m) => m.content)).toEqual(["one", "two", "three"]);
    expect(store.handedOut - before).toBe(1);
  });

  it("shares what was read between wrappers that name the store they read from", async () => {
    const store = new NumberedStore();
    await store.create({ id: "c" });
    await store.append("c", [say("one"), say("two")]);
    const wrapper = (): NumberedConversationStore => ({
      create: (input) => store.create(input),
      get: (id) => store.get(id),
      setActiveMode: (id, mode) => store.setActiveMode(id, mode),
      append: (id, messages) => store.append(id, messages),
      messages: (id) => store.messages(id),
      messagesAfter: (id, after) => store.messagesAfter(id, after),
      readsFrom: store,
    });
    await conversationHistory(wrapper(), "c");
    const before = store.handedOut;
    await store.append("c", [say("three")]);
    expect((await conversationHistory(wrapper(), "c")).map((m) => m.content)).toEqual(["one", "two", "three"]);
    expect(store.handedOut - before).toBe(1);
  });

  it("takes each message once when two reads overlap", async () => {
    const store = new NumberedStore();
    await store.create({ id: "c" });
    await store.append("c", [say("one")]);
    await conversationHistory(store, "c");
    await store.append("c", [say("two"), say("three")]);
    const [a, b] = await Promise.all([conversationHistory(store, "c"), conversationHistory(store, "c")]);
    expect(a.map((m) => m.content)).toEqual(["one", "two", "three"]);
    expect(b.map((m) => m.content)).toEqual(["one", "two", "three"]);
  });

  it("fails as messages() does for a conversation that does not exist", async () => {
    await expect(conversationHistory(new NumberedStore(), "nope")).rejects.toMatchObject({ code: "CONVERSATION_NOT_FOUND" });
  });

  it("reads the whole log every time from a store without numbers", async () => {
    const store = new InMemoryConversationStore();
    await store.create({ id: "c" });
    await store.append("c", [say("one")]);
    expect((await conversationHistory(store, "c")).map((m) => m.content)).toEqual(["one"]);
    await store.append("c", [say("two")]);
    expect((await conversationHistory(store, "c")).map((m) => m.content)).toEqual(["one", "two"]);
  });
});
