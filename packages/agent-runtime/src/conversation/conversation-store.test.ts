import { describe, expect, it } from "vitest";
import { createConversationService } from "./conversation-service.ts";
import type { ConversationMessage } from "@weft/types";
import { ConversationStoreError, InMemoryConversationStore, validateMessages } from "./conversation-store.ts";
import { assistantMessage, llmErrorMessage, toChatMessage, toolResultMessage, userMessage } from "./messages.ts";

describe("InMemoryConversationStore", () => {
  it("keeps a protocol-complete log in order, and the active mode", async () => {
    const store = new InMemoryConversationStore();
    const conversation = await store.create({ id: "c1", title: "Weaving" });
    expect(conversation.activeMode).toBe("chat");
    const call = { id: "t1", type: "function" as const, function: { name: "read_file", arguments: "{}" } };
    const log = [
      userMessage("hi", { mode: "chat" }),
      assistantMessage({ text: "", toolCalls: [call], reasoning: "need a file" }, { mode: "agent", agentId: "ada" }),
      toolResultMessage({ toolCallId: "t1", result: { ok: true }, toolName: "read_file", durationMs: 4 }, { mode: "agent", runId: "r1" }),
    ];
    await store.append("c1", log);
    expect(await store.messages("c1")).toEqual(log);
    expect((await store.setActiveMode("c1", "run")).activeMode).toBe("run");
    expect(await createConversationService(store).history("c1")).toEqual(log);
  });

  it("rejects a bad batch whole, with what is wrong", async () => {
    const store = new InMemoryConversationStore();
    await store.create({ id: "c1" });
    const good = userMessage("fine");
    const err = await store.append("c1", [good, { id: "x", createdAt: "now", role: "tool", content: "no call id" } as never]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConversationStoreError);
    expect((err as ConversationStoreError).code).toBe("INVALID_MESSAGE");
    expect((err as Error).message).toContain("Message #1");
    expect((err as Error).message).toContain("tool_call_id");
    expect(await store.messages("c1")).toEqual([]);

    await store.append("c1", [good]);
    const dup = await store.append("c1", [good]).catch((e: unknown) => e);
    expect((dup as ConversationStoreError).code).toBe("DUPLICATE_MESSAGE_ID");
    expect(((await store.messages("nope").catch((e: unknown) => e)) as ConversationStoreError).code).toBe("CONVERSATION_NOT_FOUND");
    expect(((await store.create({ id: "c1" }).catch((e: unknown) => e)) as ConversationStoreError).code).toBe("CONVERSATION_EXISTS");
  });
});

describe("log entries as OpenAI messages", () => {
  it("convert deterministically; a failed call keeps its partial text and an LLM_ERROR block", () => {
    const failed = llmErrorMessage({ code: "NETWORK", message: "connection reset", hint: "retry", status: 502, partialText: "Half" }, { id: "e1", createdAt: "t" });
    expect(failed).toEqual({ id: "e1", createdAt: "t", role: "assistant", content: "Half", llmError: { code: "NETWORK", message: "connection reset", hint: "retry", status: 502 } });
    expect(toChatMessage(failed)).toEqual({
      role: "assistant",
      content: "Half\n\nLLM_ERROR\n- code: NETWORK\n- message: connection reset\n- partialOutput: the text above was cut off by this error; continue from where it stops",
    });
    expect(toChatMessage(failed)).toEqual(toChatMessage(structuredClone(failed)));
    const empty = llmErrorMessage({ code: "AUTH", message: "bad key", hint: "fix" });
    expect(toChatMessage(empty).content).toBe("LLM_ERROR\n- code: AUTH\n- message: bad key");
  });
});

describe("validateMessages", () => {
  it("takes entries made by the constructors as they are, and checks anything else against the schema", () => {
    const made = userMessage("hi");
    expect(validateMessages("c", [made], new Set())[0]).toBe(made);
    // A copy is not a made entry: checked, so a wrong field is refused even when it started as one.
    const forged = { ...made, content: 5 } as unknown as ConversationMessage;
    expect(() => validateMessages("c", [forged], new Set())).toThrow(/invalid at content/);
    const plain = { id: "p", createdAt: new Date().toISOString(), role: "user", content: "plain" } as ConversationMessage;
    expect(validateMessages("c", [plain], new Set())[0]).not.toBe(plain);
    expect(() => validateMessages("c", [made], new Set([made.id]))).toThrow(ConversationStoreError);
  });
});
