import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { XMLParser } from "fast-xml-parser";
import type { ChatMessage, FunctionTool } from "@weft/types";
import { OpenAiCompatibleProvider, type LlmOutcome } from "../openai-compatible-provider.ts";
import { DEMO_MODEL, startDemoLlm, type DemoLlm } from "./demo-llm-server.ts";

let demo: DemoLlm;
let provider: OpenAiCompatibleProvider;
beforeAll(() => {
  demo = startDemoLlm({ port: 0 });
  provider = new OpenAiCompatibleProvider({ baseUrl: demo.baseUrl, model: DEMO_MODEL, timeoutMs: 5_000, maxRetries: 0, passBackReasoning: false });
});
afterAll(() => demo.stop());

function ok(outcome: LlmOutcome) {
  if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
  return outcome.result;
}

const fileTools: FunctionTool[] = [
  {
    type: "function",
    function: {
      name: "list_dir",
      description: "List the entries of a folder",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  },
  {
    type: "function",
    function: {
      name: "read_file",
      description: "Read a text file from the project",
      parameters: {
        type: "object",
        properties: { path: { type: "string", description: "File path" }, maxLines: { type: "integer" }, encoding: { type: "string", enum: ["utf8", "base64"] } },
        required: ["path", "maxLines"],
      },
    },
  },
];

const manifestPrompt = `You are Mira, the innkeeper.

You have access to the following tools and skills:

**Tools (direct function calls):**

*   \`<ReadWorldStateTool>\`: Reads a value from the shared world state.
    *   Parameters:
        *   \`<path>\` (string, required): The dot-separated path to the value in the world state.
        *   \`<default_value>\` (any, optional): Value to return if path is not found.
*   \`<PublishEventTool>\`: Publishes an event to the event bus.
    *   Parameters:
        *   \`<event_type>\` (string, required): The type of the event.
        *   \`<payload>\` (object, optional): A JSON object with the event data.

When you decide to use a tool or skill, first explain your reasoning, then output the <ACTION> block.`;

describe("demo LLM through the openai SDK", () => {
  it("answers offered native tools with a matching tool call, then a final answer from the tool result", async () => {
    const question: ChatMessage = { role: "user", content: 'Please read the file "docs/guide.md", first 40 lines' };
    const first = ok(await provider.complete({ messages: [question], tools: fileTools }));
    expect(first.finishReason).toBe("tool_calls");
    expect(first.toolCalls).toHaveLength(1);
    expect(first.toolCalls[0].function.name).toBe("read_file");
    expect(JSON.parse(first.toolCalls[0].function.arguments)).toEqual({ path: "docs/guide.md", maxLines: 40 });

    const result = JSON.stringify({ ok: true, path: "docs/guide.md", content: "# Guide\nWeave carefully." });
    const second = ok(
      await provider.complete({
        messages: [question, first.message, { role: "tool", tool_call_id: first.toolCalls[0].id, content: result }],
        tools: fileTools,
      }),
    );
    expect(second.finishReason).toBe("stop");
    expect(second.toolCalls).toEqual([]);
    expect(second.text).toContain("`read_file` returned");
    expect(second.text).toContain("Weave carefully.");
  });

  it("answers an <ACTION> manifest with an explanation and a well-formed <ACTION> block", async () => {
    const messages: ChatMessage[] = [
      { role: "system", content: manifestPrompt },
      { role: "user", content: "What is the weather like? Check path: environment.weather" },
    ];
    const chunks: string[] = [];
    const reply = ok(await provider.complete({ messages }, { onChunk: (c) => chunks.push(c.text) }));
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.join("")).toBe(reply.text);
    const [explanation, rest] = reply.text.split("<ACTION>");
    expect(explanation).toContain("`ReadWorldStateTool`");
    const parsed = new XMLParser({ parseTagValue: false }).parse(`<ACTION>${rest}`) as { ACTION: { ReadWorldStateTool: { path: string } } };
    expect(parsed.ACTION.ReadWorldStateTool.path).toBe("environment.weather");
    expect(Object.keys(parsed.ACTION.ReadWorldStateTool)).toEqual(["path"]);

    const final = ok(
      await provider.complete({
        messages: [...messages, { role: "assistant", content: reply.text }, { role: "user", content: "Observation: Tool ReadWorldStateTool executed successfully. Result: sunny" }],
      }),
    );
    expect(final.text).not.toContain("<ACTION>");
    expect(final.text).toContain("`ReadWorldStateTool` returned");
    expect(final.text).toContain("sunny");
  });

  it("reports a failed observation instead of inventing a result", async () => {
    const call = { id: "c9", type: "function" as const, function: { name: "read_file", arguments: '{"path":"x"}' } };
    const reply = ok(
      await provider.complete({
        messages: [
          { role: "user", content: "read x" },
          { role: "assistant", content: null, tool_calls: [call] },
          { role: "tool", tool_call_id: "c9", content: JSON.stringify({ ok: false, error: { code: "ENOENT", message: "No such file: @project/x" } }) },
        ],
      }),
    );
    expect(reply.text).toContain("`read_file` failed: No such file: @project/x");
  });

  it("replies in plain text when no tool fits or tools are switched off", async () => {
    const plain = ok(await provider.complete({ messages: [{ role: "user", content: "Hello there" }] }));
    expect(plain.text).toContain('You said: "Hello there"');
    const none = ok(await provider.complete({ messages: [{ role: "user", content: "read the file a.md" }], tools: fileTools, toolChoice: "none" }));
    expect(none.toolCalls).toEqual([]);
    const forced = ok(await provider.complete({ messages: [{ role: "user", content: "anything" }], tools: fileTools, toolChoice: { type: "function", function: { name: "list_dir" } } }));
    expect(forced.toolCalls[0].function.name).toBe("list_dir");
  });

  it("is deterministic, serves non-streaming answers and lists its model", async () => {
    const client = new OpenAI({ baseURL: demo.baseUrl, apiKey: "unused", maxRetries: 0 });
    const request = { model: DEMO_MODEL, messages: [{ role: "user" as const, content: "list the folder src" }], tools: fileTools };
    const a = await client.chat.completions.create(request);
    const b = await client.chat.completions.create(request);
    // The same answer, under its own id (tool call ids too), as a provider gives.
    expect(b.id).not.toBe(a.id);
    expect(b.choices[0].message.tool_calls?.[0].id).not.toBe(a.choices[0].message.tool_calls?.[0].id);
    expect({ ...b, id: a.id, choices: b.choices.map((c) => ({ ...c, message: { ...c.message, tool_calls: a.choices[0].message.tool_calls } })) }).toEqual(a);
    expect(a.object).toBe("chat.completion");
    expect(a.choices[0].message.tool_calls?.[0]).toMatchObject({ type: "function", function: { name: "list_dir", arguments: '{"path":"src"}' } });
    const streamed = ok(await provider.complete({ messages: request.messages, tools: fileTools }));
    expect(streamed.toolCalls[0].function).toMatchObject({ name: "list_dir", arguments: '{"path":"src"}' });

    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual([DEMO_MODEL]);
  });

  it("stops at max_tokens and answers a connection test", async () => {
    const reply = ok(await provider.complete({ messages: [{ role: "user", content: "Tell me a long story" }], maxTokens: 3 }));
    expect(reply.finishReason).toBe("length");
    expect(reply.text.trim().split(/\s+/)).toHaveLength(3);
    expect(await provider.testConnection()).toMatchObject({ ok: true, model: DEMO_MODEL });
  });

  it("rejects a malformed request with a precise 400", async () => {
    const res = await fetch(`${demo.baseUrl}/chat/completions`, { method: "POST", body: JSON.stringify({ model: DEMO_MODEL, messages: [] }) });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toBe("Invalid request at messages: messages must contain at least one message");
    const notJson = await fetch(`${demo.baseUrl}/chat/completions`, { method: "POST", body: "{oops" });
    expect(notJson.status).toBe(400);
    const withoutV1 = new OpenAiCompatibleProvider({ baseUrl: demo.url, model: DEMO_MODEL, timeoutMs: 5_000, maxRetries: 0, passBackReasoning: false });
    const outcome = await withoutV1.complete({ messages: [{ role: "user", content: "x" }] });
    expect(outcome.ok ? "ok" : outcome.error.code).toBe("MODEL_NOT_FOUND");
    expect(outcome.ok ? "" : outcome.error.hint).toContain("/v1");
  });

  it("answers as the OpenAI API does: 404 model_not_found, n choices, usage null until the usage chunk, models by id", async () => {
    const client = new OpenAI({ baseURL: demo.baseUrl, apiKey: "unused", maxRetries: 0 });
    const unknown = await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect((unknown as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model_not_found");
    const retrieved = await client.models.retrieve(DEMO_MODEL);
    expect(retrieved).toMatchObject({ id: DEMO_MODEL, object: "model" });
    expect(await client.models.retrieve("gpt-4o").catch((e: unknown) => (e as { status?: number }).status)).toBe(404);

    const two = await client.chat.completions.create({ model: DEMO_MODEL, n: 2, messages: [{ role: "user", content: "Hello there" }] });
    expect(two.choices.map((c) => c.index)).toEqual([0, 1]);
    expect(two.choices[1].message.content).toBe(two.choices[0].message.content);

    const stream = await client.chat.completions.create({ model: DEMO_MODEL, stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "Hello there" }] });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: expect.any(Number) } });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
  });
});
