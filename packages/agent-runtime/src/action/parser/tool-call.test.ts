import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manifestToOpenAiTools } from "../manifest/openai-tools.ts";
import { fixtureManifest } from "../test-support.ts";
import { parseToolCallArguments } from "./tool-call.ts";

const manifest = fixtureManifest();
const toolCall = (name: string, args: string) => ({ id: "call_1", type: "function" as const, function: { name, arguments: args } });

describe("native tool calls (openai-tools protocol)", () => {
  it("accept valid JSON arguments, checked against the same schema", () => {
    expect(parseToolCallArguments(toolCall("math_add", '{"a": 1, "b": 2.5, "precision": 2}'), manifest)).toEqual({
      kind: "call",
      responseText: "",
      trailingText: "",
      toolId: "math:add",
      toolKind: "tool",
      toolName: "math_add",
      params: { a: 1, b: 2.5, precision: 2 },
      notes: [],
    });
  });

  it("convert strings where the schema asks for numbers or booleans, noted", () => {
    const r = parseToolCallArguments(toolCall("math_add", '{"a": "1", "b": 2}'), manifest);
    expect(r).toMatchObject({ kind: "call", params: { a: 1, b: 2 } });
    expect(r.kind === "call" && r.notes).toEqual(['<a> was given as the string "1" and converted to a number.']);
  });

  it("take empty arguments as no parameters", () => {
    expect(parseToolCallArguments(toolCall("clock_now", ""), manifest)).toMatchObject({ kind: "call", params: {} });
  });

  it("match the name case-insensitively as a noted repair, and by id", () => {
    expect(parseToolCallArguments(toolCall("Clock_Now", "{}"), manifest)).toMatchObject({ kind: "call", toolId: "clock:now", notes: [expect.stringContaining("ignoring letter case")] });
    expect(parseToolCallArguments(toolCall("clock:now", "{}"), manifest)).toMatchObject({ kind: "call", toolId: "clock:now" });
  });

  it("report unknown parameters with the nearest name and a JSON example", () => {
    const r = parseToolCallArguments(toolCall("player_info", '{"playerId": "p1"}'), manifest);
    expect(r).toMatchObject({ kind: "error", code: "INVALID_PARAMS", toolId: "player:info" });
    if (r.kind !== "error") return;
    expect(r.message).toContain("- <playerId>: unknown parameter; did you mean <player_id>?");
    expect(r.message).toContain('player_info({"player_id":"p1"})');
  });

  it("report an unknown tool with the nearest one", () => {
    const r = parseToolCallArguments(toolCall("read_world", '{"path": "a"}'), manifest);
    expect(r).toMatchObject({ kind: "error", code: "UNKNOWN_TOOL" });
    if (r.kind === "error") {
      expect(r.message).toContain("Unknown tool `read_world`. Did you mean `world_read`");
      expect(r.message).toContain('world_read({"path":"a"})');
    }
  });

  it("tell cut-off JSON (TRUNCATED) from broken JSON (INVALID_PARAMS)", () => {
    expect(parseToolCallArguments(toolCall("world_read", '{"path": "a.b'), manifest)).toMatchObject({ kind: "error", code: "TRUNCATED", toolId: "world:read" });
    expect(parseToolCallArguments(toolCall("world_read", "{path: 'a'}"), manifest)).toMatchObject({ kind: "error", code: "INVALID_PARAMS" });
    expect(parseToolCallArguments(toolCall("world_read", '["a"]'), manifest)).toMatchObject({
      kind: "error",
      code: "INVALID_PARAMS",
      message: expect.stringContaining("must be a JSON object of parameters, got an array"),
    });
  });
});

describe("the tools and a tool call through the real openai SDK", () => {
  let server: ReturnType<typeof Bun.serve>;
  let received: { tools?: Array<{ type: string; function: { name: string; parameters: unknown } }> } = {};

  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      async fetch(req) {
        received = (await req.json()) as typeof received;
        return Response.json({
          id: "chatcmpl-1",
          object: "chat.completion",
          created: 0,
          model: "local",
          choices: [
            {
              index: 0,
              finish_reason: "tool_calls",
              message: {
                role: "assistant",
                content: null,
                tool_calls: [{ id: "call_1", type: "function", function: { name: "text_join", arguments: '{"parts": ["a", "b"], "separator": "-"}' } }],
              },
            },
          ],
        });
      },
    });
  });

  afterAll(() => server.stop(true));

  it("sends valid function tools and parses the call that comes back", async () => {
    const client = new OpenAI({ baseURL: `http://localhost:${server.port}/v1`, apiKey: "test" });
    const completion = await client.chat.completions.create({ model: "local", messages: [{ role: "user", content: "join" }], tools: manifestToOpenAiTools(manifest) });
    expect(received.tools?.map((t) => t.function.name)).toEqual(manifest.entries.map((e) => e.name));
    expect(received.tools?.[0]?.function.parameters).toEqual(manifest.entries[0]!.inputSchema);
    const call = completion.choices[0]!.message.tool_calls![0]!;
    if (call.type !== "function") throw new Error("expected a function call");
    expect(parseToolCallArguments(call, manifest)).toMatchObject({ kind: "call", toolId: "text:join", params: { parts: ["a", "b"], separator: "-" } });
  });
});
