import { afterEach, describe, expect, it } from "vitest";
import { createBuiltinRegistry } from "@weft/nodes";
import { LlmProfileSchema, WorkflowSchema } from "@weft/types";
import { ExecutionEngine } from "../engine/index.ts";
import { ProfileLlmService, StaticLlmProfileResolver } from "./llm-service.ts";
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedTurn } from "./testing/scripted-llm-server.ts";

/** llm:structured through the engine, the real provider (openai SDK) and a local OpenAI-compatible server. */
const SCHEMA = { type: "object", properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 } }, required: ["name", "age"], additionalProperties: false };

let server: ScriptedLlmServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function runStructured(turns: ScriptedTurn[], config: Record<string, unknown> = {}) {
  server = await startScriptedLlmServer({ turns });
  const profile = LlmProfileSchema.parse({ id: "main", name: "Scripted", baseUrl: server.baseUrl, model: "scripted-model", apiKey: "sk-test-structured-0001", timeoutMs: 3_000, maxRetries: 0 });
  const llm = new ProfileLlmService({ profiles: new StaticLlmProfileResolver([profile]) });
  const engine = new ExecutionEngine({ catalog: createBuiltinRegistry(), services: { llm } });
  const workflow = engine.singleNodeWorkflow("llm:structured", { prompt: "Who is Ada?", schema: SCHEMA, ...config });
  return { result: await engine.run(workflow), bodies: server.chatBodies() };
}

describe("llm:structured", () => {
  it("asks with response_format json_schema, re-asks after invalid JSON saying what was wrong, and gives the parsed value", async () => {
    const { result, bodies } = await runStructured([
      { kind: "text", chunks: ["Sure! Ada is 36."] },
      { kind: "text", chunks: ['{"name": "Ada", "age": "36"}'] },
      { kind: "text", chunks: ['```json\n{"name": "Ada", "age": 36}\n```'] },
    ]);
    expect(result.status, JSON.stringify(result.error)).toBe("completed");
    expect(result.outputs).toMatchObject({ value: { name: "Ada", age: 36 }, attempts: 3, mode: "json_schema" });
    expect(bodies[0]).toMatchObject({ response_format: { type: "json_schema", json_schema: { name: "result", schema: SCHEMA } } });
    const corrections = bodies.slice(1).map((b) => JSON.stringify((b.messages as unknown[]).at(-1)));
    expect(corrections[0]).toContain("it is not JSON");
    expect(corrections[1]).toContain("/age: must be integer");
  });

  it("fails with INVALID_LLM_OUTPUT after the allowed re-asks, naming the last problem", async () => {
    const { result, bodies } = await runStructured(
      [
        { kind: "text", chunks: ["{}"] },
        { kind: "text", chunks: ["{}"] },
        { kind: "text", chunks: ['{"name": "never asked"}'] },
      ],
      { maxReasks: 1 },
    );
    expect(result.status).toBe("failed");
    expect(result.observations[0].error).toMatchObject({ code: "INVALID_LLM_OUTPUT", message: expect.stringContaining("in 2 attempt(s)") });
    expect(result.observations[0].error?.message).toContain("must have required property 'name'");
    expect(bodies).toHaveLength(2);
  });

  it("falls back to a forced tool call when the provider refuses response_format, and corrects through the tool result", async () => {
    const { result, bodies } = await runStructured([
      { kind: "http_error", status: 400, message: "response_format json_schema is not supported by this model", type: "invalid_request_error" },
      { kind: "tool_calls", calls: [{ id: "c1", name: "respond", arguments: '{"name": "Ada", "age": -1}' }] },
      { kind: "tool_calls", calls: [{ id: "c2", name: "respond", arguments: '{"name": "Ada", "age": 36}' }] },
    ]);
    expect(result.status, JSON.stringify(result.error)).toBe("completed");
    expect(result.outputs).toMatchObject({ value: { name: "Ada", age: 36 }, attempts: 2, mode: "tool" });
    expect(bodies[1]).toMatchObject({ tool_choice: { type: "function", function: { name: "respond" } }, tools: [{ function: { name: "respond", parameters: SCHEMA } }] });
    expect(bodies[1]).not.toHaveProperty("response_format");
    expect((bodies[2].messages as unknown[]).at(-1)).toMatchObject({ role: "tool", tool_call_id: "c1", content: expect.stringContaining("/age: must be >= 0") });
  });

  it("asks through the prompt in prompt mode", async () => {
    const { result, bodies } = await runStructured([{ kind: "text", chunks: ['{"name": "Ada", "age": 36}'] }], { mode: "prompt" });
    expect(result.outputs).toMatchObject({ value: { name: "Ada", age: 36 }, mode: "prompt" });
    expect((bodies[0].messages as { content: string }[])[0].content).toContain('"required":["name","age"]');
  });

  it("gives each property of the schema on its own typed output, which edges can take and the graph check types", async () => {
    server = await startScriptedLlmServer({ turns: [{ kind: "text", chunks: ['{"name": "Ada", "age": 36}'] }] });
    const profile = LlmProfileSchema.parse({ id: "main", name: "Scripted", baseUrl: server.baseUrl, model: "scripted-model", apiKey: "sk-test-structured-0001", timeoutMs: 3_000, maxRetries: 0 });
    const engine = new ExecutionEngine({ catalog: createBuiltinRegistry(), services: { llm: new ProfileLlmService({ profiles: new StaticLlmProfileResolver([profile]) }) } });
    const workflow = (from: string) =>
      WorkflowSchema.parse({
        id: "typed",
        name: "Typed",
        nodes: [
          { id: "who", type: "llm:structured", config: { schema: SCHEMA }, inputs: { prompt: "Who is Ada?" } },
          { id: "older", type: "core:math", config: { op: "add" }, inputs: { b: 1 } },
          { id: "out", type: "core:workflow-output", config: { name: "next", portType: "number" } },
        ],
        edges: [
          { id: "e1", source: "who", sourceHandle: from, target: "older", targetHandle: "a" },
          { id: "e2", source: "older", sourceHandle: "result", target: "out", targetHandle: "value" },
        ],
      });
    const result = await engine.run(workflow("age"));
    expect(result.status, JSON.stringify(result.error)).toBe("completed");
    expect(result.outputs).toEqual({ next: 37 });
    expect(result.observations.find((o) => o.nodeId === "who")?.outputs).toMatchObject({ name: "Ada", age: 36, value: { name: "Ada", age: 36 } });
    const refused = engine.validate(workflow("name"));
    expect(refused.ok).toBe(false);
    expect(refused.ok ? [] : refused.issues.map((i) => i.code)).toContain("PORT_TYPE_MISMATCH");
  });
});
