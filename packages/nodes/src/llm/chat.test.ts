import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { llmChat } from "./chat.ts";

// Calls through a real provider and server are tested in packages/agent-runtime/src/llm/llm-nodes.test.ts,
// where the runtime that implements ctx.services.llm is available.
describe("llm:chat", () => {
  it("streams, and is never cached", () => {
    expect(llmChat.spec.flags).toMatchObject({ streaming: true, idempotent: false });
  });

  it("fails clearly when no LLM service is configured", async () => {
    const failure = await expectFailure(runNode(llmChat, { prompt: "Hello" }), "MISSING_SERVICE");
    expect(failure.message).toContain("ctx.services.llm");
  });

  it("refuses a request with nothing to answer, before looking for a service", async () => {
    const failure = await expectFailure(runNode(llmChat, { system: "Be brief." }), "INVALID_INPUT");
    expect(failure.message).toContain("set `prompt`");
  });

  it("names the broken part of a tool manifest and of a message list", async () => {
    const tools = await expectFailure(runNode(llmChat, { prompt: "x", tools: [{ type: "function", function: { description: "no name" } }] }), "INVALID_INPUT");
    expect(tools.message).toContain("at tools.0.function.name");
    const messages = await expectFailure(runNode(llmChat, { messages: [{ role: "user" }] }), "INVALID_MESSAGE");
    expect(messages.message).toContain("Message 0 of messages");
  });

  it("checks its settings", async () => {
    await expectFailure(runNode(llmChat, { prompt: "x" }, { temperature: 3 }), "INVALID_CONFIG");
    await expectFailure(runNode(llmChat, { prompt: "x" }, { maxTokens: 0 }), "INVALID_CONFIG");
  });
});
