import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { llmContextWindow } from "./context-window.ts";

// Windowing itself runs in packages/agent-runtime/src/conversation/context-window-node.test.ts,
// with the runtime's conversation service.
describe("llm:context-window", () => {
  it("reports a malformed history entry by position, even without the runtime", async () => {
    const failure = await expectFailure(runNode(llmContextWindow, { history: [{ role: "user", content: "ok" }, { role: "assistant" }] }), "INVALID_MESSAGE");
    expect(failure.message).toContain("Message 1 of history");
  });

  it("needs a run context in run mode", async () => {
    const missing = await expectFailure(runNode(llmContextWindow, { prompt: "go" }, { mode: "run" }), "INVALID_INPUT");
    expect(missing.message).toContain('{"workflow": "<workflow id>"}');
    const bad = await expectFailure(runNode(llmContextWindow, { prompt: "go", runContext: { workflow: 5 } }, { mode: "run" }), "INVALID_INPUT");
    expect(bad.message).toContain("at workflow");
  });

  it("fails clearly when the conversation service is absent", async () => {
    const failure = await expectFailure(runNode(llmContextWindow, { prompt: "hi" }), "MISSING_SERVICE");
    expect(failure.message).toContain("ctx.services.conversation");
  });
});
