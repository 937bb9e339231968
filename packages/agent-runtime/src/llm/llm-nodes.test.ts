import { afterEach, describe, expect, it, vi } from "vitest";
import { createBuiltinRegistry } from "@weft/nodes";
import { LlmProfileSchema, type LlmTurn, type Logger, type RunEvent, type Workflow } from "@weft/types";
import { ExecutionEngine } from "../engine/index.ts";
import { ProfileLlmService, StaticLlmProfileResolver } from "./llm-service.ts";
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedTurn } from "./testing/scripted-llm-server.ts";
import { startDemoLlm } from "./demo/demo-llm-server.ts";
import { demoLlmProfile } from "./demo/demo-profile.ts";

const API_KEY = "sk-secret-never-logged-42";

function recordingLogger(lines: string[], scope = "test"): Logger {
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push(`${level} [${scope}] ${message} ${JSON.stringify(fields ?? {})}`);
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), child: (sub) => recordingLogger(lines, `${scope}:${sub}`) };
}

let server: ScriptedLlmServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function setup(turns: ScriptedTurn[]) {
  server = await startScriptedLlmServer({ turns });
  const lines: string[] = [];
  const turnsSeen: LlmTurn[] = [];
  const profile = LlmProfileSchema.parse({ id: "main", name: "Scripted", baseUrl: server.baseUrl, model: "scripted-model", apiKey: API_KEY, timeoutMs: 3_000, maxRetries: 1 });
  const llm = new ProfileLlmService({ profiles: new StaticLlmProfileResolver([profile]), onTurn: (t) => turnsSeen.push(t), logger: recordingLogger(lines) });
  const engine = new ExecutionEngine({ catalog: createBuiltinRegistry(), services: { llm }, logger: recordingLogger(lines, "engine") });
  return { server, engine, lines, turnsSeen };
}

async function run(engine: ExecutionEngine, workflow: Workflow, signal?: AbortSignal) {
  const events: RunEvent[] = [];
  const result = await engine.run(workflow, { onEvent: (e) => events.push(e), signal });
  return { result, events };
}

describe("llm:chat through the engine and the real provider", () => {
  it("streams text as node.chunk events and outputs text, usage, finish reason and the conversation", async () => {
    const { server, engine, turnsSeen } = await setup([{ kind: "text", chunks: ["Once ", "upon ", "a time"], chunkDelayMs: 20 }]);
    const wf = engine.singleNodeWorkflow("llm:chat", { system: "Tell stories.", prompt: "Begin", model: "story-model", temperature: 0.5, maxTokens: 64 });
    const { result, events } = await run(engine, wf);

    expect(result.status).toBe("completed");
    const chunks = events.flatMap((e) => (e.type === "node.chunk" ? [e.chunk as string] : []));
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(chunks.join("")).toBe("Once upon a time");
    expect(result.outputs).toMatchObject({ text: "Once upon a time", reasoning: "", finishReason: "stop", toolCalls: [] });
    expect(result.outputs.usage).toMatchObject({ promptTokens: 10 });
    expect(result.outputs.messages).toEqual([
      { role: "system", content: "Tell stories." },
      { role: "user", content: "Begin" },
      { role: "assistant", content: "Once upon a time" },
    ]);
    expect(server.chatBodies()[0]).toMatchObject({ model: "story-model", temperature: 0.5, max_tokens: 64, stream: true });
    expect(turnsSeen).toHaveLength(1);
    expect(turnsSeen[0].raw).toMatchObject({ object: "chat.completion", choices: [{ finish_reason: "stop" }] });
  });

  it("sends a fast stream as a few chunks: the first at once, then at most one per 50 ms, none lost", async () => {
    const tokens = Array.from({ length: 60 }, (_, i) => `t${i} `);
    const { engine } = await setup([{ kind: "text", chunks: tokens, chunkDelayMs: 3 }]);
    const { result, events } = await run(engine, engine.singleNodeWorkflow("llm:chat", { prompt: "Count" }));
    expect(result.status).toBe("completed");
    const chunks = events.filter((e): e is Extract<RunEvent, { type: "node.chunk" }> => e.type === "node.chunk");
    expect(chunks.map((c) => c.chunk).join("")).toBe(tokens.join(""));
    // Sent one by one, 60 tokens over ≥180 ms were 60 events; paced, one per 50 ms of the stream's length (which a busy
    // machine stretches) plus the first and the last.
    const span = chunks.at(-1)!.ts - chunks[0]!.ts;
    expect(chunks.length).toBeLessThanOrEqual(2 + Math.floor(span / 45));
    expect(chunks[0]!.chunk).toBe("t0 ");
    for (let i = 1; i < chunks.length - 1; i++) expect(chunks[i]!.ts - chunks[i - 1]!.ts).toBeGreaterThanOrEqual(45);
  });

  it("passes tools and returns assembled tool calls", async () => {
    const { server, engine } = await setup([{ kind: "tool_calls", calls: [{ id: "call_9", name: "lookup", arguments: '{"q":"loom"}' }] }]);
    const tools = [{ type: "function", function: { name: "lookup", description: "Look a word up", parameters: { type: "object", properties: { q: { type: "string" } } } } }];
    const { result } = await run(engine, engine.singleNodeWorkflow("llm:chat", { prompt: "What is a loom?", tools }));
    expect(result.outputs.finishReason).toBe("tool_calls");
    expect(result.outputs.toolCalls).toEqual([{ id: "call_9", type: "function", function: { name: "lookup", arguments: '{"q":"loom"}' } }]);
    expect(result.outputs.message).toMatchObject({ role: "assistant", content: null });
    expect(server.chatBodies()[0].tools).toEqual(tools);
  });

  it("fails with the LLM error code, its hint, and the partial text", async () => {
    const { engine, lines, turnsSeen } = await setup([
      { kind: "http_error", status: 401, message: "Invalid API key" },
      { kind: "disconnect", chunks: ["Half an ", "answer"] },
    ]);
    const auth = await run(engine, engine.singleNodeWorkflow("llm:chat", { prompt: "hi" }));
    expect(auth.result.status).toBe("failed");
    const authError = auth.result.observations[0].error;
    expect(authError?.code).toBe("AUTH");
    expect(authError?.message).toContain("API key");
    expect(authError?.details).toMatchObject({ status: 401 });

    const cut = await run(engine, engine.singleNodeWorkflow("llm:chat", { prompt: "hi" }));
    const cutError = cut.result.observations[0].error;
    expect(cutError?.code).toBe("NETWORK");
    expect(cutError?.details).toMatchObject({ partialText: "Half an answer" });
    expect(cut.events.some((e) => e.type === "node.chunk" && e.chunk === "Half an ")).toBe(true);

    expect(turnsSeen.map((t) => t.error?.code)).toEqual(["AUTH", "NETWORK"]);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join("\n")).not.toContain(API_KEY);
    expect(JSON.stringify(turnsSeen)).not.toContain(API_KEY);
  });

  it("names an unknown profile", async () => {
    const { engine } = await setup([]);
    const { result } = await run(engine, engine.singleNodeWorkflow("llm:chat", { prompt: "hi", profileId: "nope" }));
    expect(result.observations[0].error).toMatchObject({ code: "PROFILE_NOT_FOUND", message: expect.stringContaining('"nope"') });
  });

  it("stops the HTTP request when the run is cancelled", async () => {
    const { server, engine } = await setup([{ kind: "text", chunks: ["a ", "b ", "c ", "d ", "e "], chunkDelayMs: 300 }]);
    const controller = new AbortController();
    const pending = run(engine, engine.singleNodeWorkflow("llm:chat", { prompt: "slowly" }), controller.signal);
    await vi.waitFor(() => expect(server.requests).toHaveLength(1), { timeout: 60_000 });
    controller.abort();
    const { result } = await pending;
    expect(result.status).toBe("cancelled");
    await vi.waitFor(() => expect(server.requests[0].clientClosedEarly).toBe(true), { timeout: 60_000 });
  });
});

describe("a workflow on the demo LLM", () => {
  it("answers an <ACTION> manifest, then uses the observation", async () => {
    const demo = startDemoLlm();
    try {
      const llm = new ProfileLlmService({ profiles: new StaticLlmProfileResolver([demoLlmProfile(demo.baseUrl)]) });
      const engine = new ExecutionEngine({ catalog: createBuiltinRegistry(), services: { llm } });
      const system = [
        "You are a shop assistant.",
        "You have access to the following tools and skills:",
        "*   `<check_stock>`: Checks how many items of a product are in stock.",
        "    *   Parameters:",
        "        *   `<product>` (string, required): The product name.",
      ].join("\n");
      const first = await engine.run(engine.singleNodeWorkflow("llm:chat", { system, prompt: 'Do we have "blue yarn" in stock?' }));
      expect(first.status).toBe("completed");
      const text = first.outputs.text as string;
      expect(text).toContain("<ACTION>\n    <check_stock>\n        <product>blue yarn</product>\n    </check_stock>\n</ACTION>");

      const messages = [...(first.outputs.messages as unknown[]), { role: "user", content: "Observation: Tool check_stock executed successfully. Result: 12 skeins" }];
      const second = await engine.run(engine.singleNodeWorkflow("llm:chat", { messages }));
      expect(second.outputs.text).toContain("12 skeins");
      expect(second.outputs.text).not.toContain("<ACTION>");
    } finally {
      await demo.stop();
    }
  });
});
