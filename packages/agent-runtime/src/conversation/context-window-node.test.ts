import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBuiltinRegistry } from "@weft/nodes";
import { WorkflowSchema, type ChatMessage, type ContextDebug } from "@weft/types";
import { ExecutionEngine } from "../engine/index.ts";
import { startDemoLlm, type DemoLlm } from "../llm/demo/demo-llm-server.ts";
import { demoLlmProfile } from "../llm/demo/demo-profile.ts";
import { ProfileLlmService, StaticLlmProfileResolver } from "../llm/llm-service.ts";
import { createConversationService } from "./conversation-service.ts";
import { InMemoryConversationStore } from "./conversation-store.ts";
import { assistantMessage, toolResultMessage, userMessage } from "./messages.ts";
import { FileToolOutputStore, storeLargeToolOutput } from "./tool-output-store.ts";

let demo: DemoLlm;
let stateDir: string;
beforeAll(async () => {
  demo = startDemoLlm();
  stateDir = await mkdtemp(join(tmpdir(), "weft-state-"));
});
afterAll(async () => {
  await demo.stop();
  await rm(stateDir, { recursive: true, force: true });
});

describe("llm:context-window with the runtime's conversation service", () => {
  it("windows a stored conversation, previews a large tool output, and feeds llm:chat", async () => {
    const store = new InMemoryConversationStore();
    const { id } = await store.create({ activeMode: "agent" });
    const call = { id: "call_1", type: "function" as const, function: { name: "read_file", arguments: '{"path":"@project/log.txt"}' } };
    const bigOutput = JSON.stringify({ ok: true, content: "error at line 7\n".repeat(2_000) });
    const result = await storeLargeToolOutput(toolResultMessage({ toolCallId: "call_1", result: bigOutput, toolName: "read_file" }), new FileToolOutputStore(stateDir), 8_000);
    await store.append(id, [
      userMessage("old small talk"),
      assistantMessage({ text: "old reply", toolCalls: [] }),
      userMessage("What went wrong in log.txt?"),
      assistantMessage({ text: "", toolCalls: [call] }),
      result,
    ]);
    expect(result.fullOutputPath).toBe("@state/logs/tool-results/call_1.json");
    expect(await readFile(join(stateDir, "logs/tool-results/call_1.json"), "utf8")).toBe(bigOutput);

    const llm = new ProfileLlmService({ profiles: new StaticLlmProfileResolver([demoLlmProfile(demo.baseUrl)]) });
    const engine = new ExecutionEngine({ catalog: createBuiltinRegistry(), services: { llm, conversation: createConversationService(store) } });
    const workflow = WorkflowSchema.parse({
      id: "answer",
      name: "Answer from history",
      nodes: [
        { id: "window", type: "llm:context-window", inputs: { conversationId: id, persona: "You are Ada, a log analyst." }, config: { mode: "agent", maxMessages: 3 } },
        { id: "chat", type: "llm:chat" },
        { id: "out", type: "core:workflow-output", config: { name: "answer", portType: "string" } },
      ],
      edges: [
        { id: "e1", source: "window", sourceHandle: "messages", target: "chat", targetHandle: "messages" },
        { id: "e2", source: "chat", sourceHandle: "text", target: "out", targetHandle: "value" },
      ],
    });
    const run = await engine.run(workflow);
    expect(run.status).toBe("completed");

    const window = run.observations.find((o) => o.nodeId === "window");
    const sent = window?.outputs.messages as ChatMessage[];
    const debug = window?.outputs.debug as ContextDebug;
    const history = sent.slice(debug.prefixMessages);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(history[2].content).toContain("Full output: @state/logs/tool-results/call_1.json");
    expect(history[2].content!.length).toBeLessThan(2_000);
    expect(sent.slice(0, debug.prefixMessages).some((m) => m.content === "You are Ada, a log analyst.")).toBe(true);
    expect(debug.droppedMessages).toBe(2);
    expect(debug.previewedToolResultIds).toEqual([result.id]);

    expect(run.outputs.answer).toContain("`read_file` returned");
    expect(run.outputs.answer).toContain("error at line 7");
  });

  it("reports an unknown conversation with the store's code", async () => {
    const engine = new ExecutionEngine({ catalog: createBuiltinRegistry(), services: { conversation: createConversationService(new InMemoryConversationStore()) } });
    const run = await engine.run(engine.singleNodeWorkflow("llm:context-window", { conversationId: "missing" }));
    expect(run.observations[0].error).toMatchObject({ code: "CONVERSATION_NOT_FOUND", message: expect.stringContaining('"missing"') });
  });
});
