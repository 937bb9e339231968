import { afterEach, describe, expect, it, vi } from "vitest";
import type { ChatMessage, LlmStreamChunk } from "@weft/types";
import { OpenAiCompatibleProvider, type LlmOutcome, type ProviderConfig } from "./openai-compatible-provider.ts";
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedTurn } from "./testing/scripted-llm-server.ts";

let server: ScriptedLlmServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function setup(turns: ScriptedTurn[], config: Partial<ProviderConfig> = {}) {
  server = await startScriptedLlmServer({ turns });
  const provider = new OpenAiCompatibleProvider({
    baseUrl: server.baseUrl,
    model: "test-model",
    apiKey: "sk-test-123",
    timeoutMs: 5_000,
    maxRetries: 2,
    passBackReasoning: false,
    retryBaseDelayMs: 10,
    ...config,
  });
  return { server, provider };
}

const ask: ChatMessage[] = [{ role: "user", content: "Say hello" }];

function failure(outcome: LlmOutcome) {
  if (outcome.ok) throw new Error(`expected a failure, got text ${JSON.stringify(outcome.result.text)}`);
  return outcome.error;
}
/** A cut the scripted server waits for: it comes once the client has read `text`, so the reset drops nothing unread. */
function readThenCut(text: string) {
  let seen = "";
  let cut: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (cut = resolve));
  return {
    cut: promise,
    saw(chunk: string) {
      seen += chunk;
      if (seen === text) cut();
    },
  };
}

function success(outcome: LlmOutcome) {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.result;
}

describe("OpenAiCompatibleProvider over real HTTP", () => {
  it("reads the usage a provider reports: prompt, completion, cached and reasoning tokens", async () => {
    const { provider } = await setup([{ kind: "text", chunks: ["Hi"], reasoning: ["hmm"], usage: { prompt_tokens: 1200, completion_tokens: 340, cached_tokens: 1000, reasoning_tokens: 300 } }]);
    const result = success(await provider.complete({ messages: ask }));
    expect(result.usage).toEqual({ promptTokens: 1200, completionTokens: 340, totalTokens: 1540, cachedTokens: 1000, reasoningTokens: 300 });
    expect(result.turn?.response?.usage).toEqual(result.usage);
  });

  it("estimates the usage, marked as an estimate, when the provider reports none", async () => {
    const { server, provider } = await setup([{ kind: "text", chunks: ["Hello ", "there, friend"], usage: null }]);
    const result = success(await provider.complete({ messages: ask }));
    // The answer is 19 characters: ceil(19 / 4) tokens; the prompt is the messages as sent, in JSON.
    const sent = server.chatBodies()[0].messages;
    expect(result.usage).toEqual({ promptTokens: Math.ceil(JSON.stringify(sent).length / 4), completionTokens: 5, totalTokens: Math.ceil(JSON.stringify(sent).length / 4) + 5, estimated: true });
  });

  it("streams text deltas, then returns the text, finish reason, usage and the turn record", async () => {
    const { server, provider } = await setup([{ kind: "text", chunks: ["Hel", "lo", " there"] }], { temperature: 0.3 });
    const chunks: LlmStreamChunk[] = [];
    const result = success(await provider.complete({ messages: ask, maxTokens: 50 }, { onChunk: (c) => chunks.push(c) }));

    expect(chunks).toEqual([
      { kind: "text", text: "Hel" },
      { kind: "text", text: "lo" },
      { kind: "text", text: " there" },
    ]);
    expect(result.text).toBe("Hello there");
    expect(result.finishReason).toBe("stop");
    expect(result.usage?.promptTokens).toBe(10);
    expect(result.usage?.totalTokens).toBe((result.usage?.promptTokens ?? 0) + (result.usage?.completionTokens ?? 0));
    expect(result.message).toEqual({ role: "assistant", content: "Hello there" });
    expect(result.turn?.attempts).toBe(1);
    expect(result.turn?.response?.assistant.content).toBe("Hello there");
    expect((result.raw as { streamChunks: number }).streamChunks).toBe(6);

    const [body] = server.chatBodies();
    expect(body).toMatchObject({ model: "test-model", stream: true, stream_options: { include_usage: true }, temperature: 0.3, max_tokens: 50 });
    expect(server.requests[0].headers.authorization).toBe("Bearer sk-test-123");
  });

  it("assembles tool-call deltas into complete tool_calls", async () => {
    const { provider } = await setup([
      {
        kind: "tool_calls",
        calls: [
          { id: "call_a", name: "read_file", arguments: '{"path":"@project/notes.md","limit":20}', argumentChunks: 5 },
          { id: "call_b", name: "list_dir", arguments: '{"path":"@project"}' },
        ],
      },
    ]);
    const result = success(await provider.complete({ messages: ask, tools: [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }] }));
    expect(result.finishReason).toBe("tool_calls");
    expect(result.toolCalls).toEqual([
      { id: "call_a", type: "function", function: { name: "read_file", arguments: '{"path":"@project/notes.md","limit":20}' } },
      { id: "call_b", type: "function", function: { name: "list_dir", arguments: '{"path":"@project"}' } },
    ]);
    expect(result.message.content).toBeNull();
    expect(result.message.tool_calls).toHaveLength(2);
  });

  it("keeps reasoning apart from the text and passes it back only when the profile requires it", async () => {
    const turns: ScriptedTurn[] = [
      { kind: "tool_calls", reasoning: ["Need the ", "file."], calls: [{ id: "c1", name: "read_file", arguments: "{}" }] },
      { kind: "text", chunks: ["done"] },
    ];
    const { server, provider } = await setup(turns, { passBackReasoning: true });
    const chunks: LlmStreamChunk[] = [];
    const first = success(await provider.complete({ messages: ask }, { onChunk: (c) => chunks.push(c) }));
    expect(first.reasoning).toBe("Need the file.");
    expect(first.text).toBe("");
    expect(chunks.filter((c) => c.kind === "reasoning").map((c) => c.text)).toEqual(["Need the ", "file."]);
    expect(first.message.reasoning_content).toBe("Need the file.");

    const older: ChatMessage = { role: "assistant", content: "earlier answer", reasoning_content: "old thoughts" };
    const history: ChatMessage[] = [{ role: "user", content: "first question" }, older, ...ask, first.message, { role: "tool", tool_call_id: "c1", content: '{"ok":true}' }];
    success(await provider.complete({ messages: history }));
    const sent = server.chatBodies()[1].messages as Array<Record<string, unknown>>;
    expect(sent[1]).toEqual({ role: "assistant", content: "earlier answer" });
    expect(sent[3]).toMatchObject({ role: "assistant", content: null, reasoning_content: "Need the file." });
  });

  it("never sends reasoning back to a provider that does not want it", async () => {
    const { server, provider } = await setup([{ kind: "text", chunks: ["ok"] }], { passBackReasoning: false });
    success(
      await provider.complete({
        messages: [
          ...ask,
          { role: "assistant", content: null, reasoning_content: "secret chain", tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
          { role: "tool", tool_call_id: "c1", content: "{}" },
        ],
      }),
    );
    expect(JSON.stringify(server.chatBodies()[0])).not.toContain("secret chain");
  });

  it("reports 401 as AUTH without retrying", async () => {
    const { server, provider } = await setup([{ kind: "http_error", status: 401, message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" }]);
    const error = failure(await provider.complete({ messages: ask }));
    expect(error.code).toBe("AUTH");
    expect(error.status).toBe(401);
    expect(error.message).toContain("Incorrect API key provided");
    expect(error.hint).toContain("API key");
    expect(server.requests).toHaveLength(1);
    expect(error.turn?.error?.code).toBe("AUTH");
  });

  it("never shows credentials embedded in the base URL", async () => {
    const { server } = await setup([{ kind: "http_error", status: 401, message: "nope" }]);
    const url = server.baseUrl.replace("http://", "http://user:hunter2secret@");
    const provider = new OpenAiCompatibleProvider({ baseUrl: url, model: "m", timeoutMs: 2_000, maxRetries: 0, passBackReasoning: false });
    const error = failure(await provider.complete({ messages: ask }));
    expect(error.code).toBe("AUTH");
    expect(error.turn?.baseUrl).toBe(server.baseUrl);
    expect(JSON.stringify({ message: error.message, hint: error.hint, turn: error.turn })).not.toContain("hunter2secret");
  });

  it("reports 404 as MODEL_NOT_FOUND and an oversized prompt as CONTEXT_LENGTH", async () => {
    const { provider } = await setup([
      { kind: "http_error", status: 404, message: "The model `nope` does not exist", code: "model_not_found" },
      { kind: "http_error", status: 400, message: "This model's maximum context length is 8192 tokens.", code: "context_length_exceeded" },
      { kind: "http_error", status: 400, message: "Invalid schema for function 'f'" },
    ]);
    const notFound = failure(await provider.complete({ messages: ask, model: "nope" }));
    expect(notFound.code).toBe("MODEL_NOT_FOUND");
    expect(notFound.hint).toContain('"nope"');
    expect(failure(await provider.complete({ messages: ask })).code).toBe("CONTEXT_LENGTH");
    expect(failure(await provider.complete({ messages: ask })).code).toBe("BAD_REQUEST");
  });

  it("retries a 429 after the retry-after delay, then succeeds", async () => {
    const { server, provider } = await setup([
      { kind: "http_error", status: 429, message: "Slow down", headers: { "retry-after-ms": "150" } },
      { kind: "text", chunks: ["finally"] },
    ]);
    const result = success(await provider.complete({ messages: ask }));
    expect(result.text).toBe("finally");
    expect(result.turn?.attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1].receivedAt - server.requests[0].receivedAt).toBeGreaterThanOrEqual(140);
  });

  it("gives up on 429 after maxRetries, and never waits longer than the retry bound", async () => {
    const limited: ScriptedTurn = { kind: "http_error", status: 429, message: "Rate limit", headers: { "retry-after": "0" } };
    const { server, provider } = await setup([limited, limited, limited], { maxRetries: 2 });
    const error = failure(await provider.complete({ messages: ask }));
    expect(error.code).toBe("RATE_LIMIT");
    expect(server.requests).toHaveLength(3);

    server.enqueue({ kind: "http_error", status: 429, message: "Come back in an hour", headers: { "retry-after": "3600" } });
    const tooLong = failure(await provider.complete({ messages: ask }));
    expect(tooLong.code).toBe("RATE_LIMIT");
    expect(tooLong.retryAfterMs).toBe(3_600_000);
    expect(tooLong.hint).toContain("3600 s");
    expect(server.requests).toHaveLength(4);
  });

  it("retries a 5xx answer before anything was streamed", async () => {
    const { provider } = await setup([
      { kind: "http_error", status: 503, message: "overloaded" },
      { kind: "text", chunks: ["up again"] },
    ]);
    expect(success(await provider.complete({ messages: ask })).text).toBe("up again");
  });

  it("times out when the server does not answer, and when the stream stalls, keeping the partial text", async () => {
    const { server, provider } = await setup(
      [
        { kind: "text", chunks: ["never"], delayMs: 10_000 },
        { kind: "text", chunks: ["Hel", "lo", "!"], stall: { afterChunks: 2, ms: 10_000 } },
      ],
      // Long enough for a busy machine to deliver the first chunk in time; the stalls are far longer.
      { timeoutMs: 1_500 },
    );
    const silent = failure(await provider.complete({ messages: ask }));
    expect(silent.code).toBe("TIMEOUT");
    expect(silent.hint).toContain("1500 ms");

    const stalled = failure(await provider.complete({ messages: ask }));
    expect(stalled.code).toBe("TIMEOUT");
    expect(stalled.partialText).toBe("Hel");
    await vi.waitFor(() => expect(server.requests.map((r) => r.clientClosedEarly)).toEqual([true, true]), { timeout: 60_000 });
  });

  it("keeps the partial text when the connection drops mid-stream", async () => {
    const read = readThenCut("The answer is");
    const { provider } = await setup([{ kind: "disconnect", chunks: ["The answer ", "is"], reasoning: ["thinking"], cutWhen: read.cut }]);
    const chunks: string[] = [];
    const error = failure(await provider.complete({ messages: ask }, { onChunk: (c) => c.kind === "text" && (chunks.push(c.text), read.saw(c.text)) }));
    expect(error.code).toBe("NETWORK");
    expect(error.partialText).toBe("The answer is");
    expect(error.partialReasoning).toBe("thinking");
    expect(chunks).toEqual(["The answer ", "is"]);
    expect(error.turn?.raw).toMatchObject({ choices: [{ message: { content: "The answer is" } }] });
  });

  it("stops the HTTP request when the signal aborts", async () => {
    const { server, provider } = await setup([{ kind: "text", chunks: ["one ", "two ", "three ", "four "], chunkDelayMs: 200 }]);
    const controller = new AbortController();
    const outcome = await provider.complete({ messages: ask }, { signal: controller.signal, onChunk: (c) => c.text === "one " && controller.abort() });
    const error = failure(outcome);
    expect(error.code).toBe("CANCELLED");
    expect(error.partialText).toBe("one ");
    await vi.waitFor(() => expect(server.requests[0].clientClosedEarly).toBe(true), { timeout: 60_000 });

    const already = failure(await provider.complete({ messages: ask }, { signal: AbortSignal.abort() }));
    expect(already.code).toBe("CANCELLED");
    expect(server.requests).toHaveLength(1);
  });

  it("reports malformed bodies and in-stream errors precisely", async () => {
    const { provider } = await setup([
      { kind: "malformed", body: 'data: {"id": "x", "choices": [\n\n' },
      { kind: "malformed", body: "<html>Not an API</html>", contentType: "text/html" },
      { kind: "stream_error", chunks: ["Par", "tial"], message: "upstream model crashed" },
    ]);
    const broken = failure(await provider.complete({ messages: ask }));
    expect(broken.code).toBe("BAD_RESPONSE");
    expect(broken.message).toContain("malformed");
    const html = failure(await provider.complete({ messages: ask }));
    expect(html.code).toBe("BAD_RESPONSE");
    expect(html.hint).toContain("/v1");
    const late = failure(await provider.complete({ messages: ask }));
    expect(late.code).toBe("PROVIDER_ERROR");
    expect(late.message).toContain("upstream model crashed");
    expect(late.partialText).toBe("Partial");
  });

  it("reports an unreachable endpoint as NETWORK", async () => {
    const { server: s } = await setup([]);
    await s.stop();
    server = undefined;
    const provider = new OpenAiCompatibleProvider({ baseUrl: s.baseUrl, model: "m", timeoutMs: 2_000, maxRetries: 0, passBackReasoning: false });
    const error = failure(await provider.complete({ messages: ask }));
    expect(error.code).toBe("NETWORK");
    expect(error.hint).toContain(s.baseUrl);
  });

  it("tests a connection with a one-token request", async () => {
    const { server, provider } = await setup([
      { kind: "text", chunks: ["p"], model: "served-model" },
      { kind: "http_error", status: 401, message: "bad key" },
    ]);
    const ok = await provider.testConnection();
    expect(ok).toMatchObject({ ok: true, model: "served-model" });
    expect(server.chatBodies()[0].max_tokens).toBe(1);
    const bad = await provider.testConnection();
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.code).toBe("AUTH");
  });

  it("reads an error event inside the stream by its code and type, as the HTTP statuses are read", async () => {
    const cases: Array<[ScriptedTurn, string, number]> = [
      [{ kind: "stream_error", chunks: [], message: "Incorrect API key provided", code: "invalid_api_key", type: "invalid_request_error" }, "AUTH", 1],
      [{ kind: "stream_error", chunks: [], message: "You exceeded your current quota", code: "insufficient_quota", type: "insufficient_quota" }, "QUOTA", 1],
      [{ kind: "http_error", status: 429, message: "You exceeded your current quota", code: "insufficient_quota", type: "insufficient_quota" }, "QUOTA", 1],
      [{ kind: "stream_error", chunks: [], message: "Rate limit reached", code: "rate_limit_exceeded", type: "requests" }, "RATE_LIMIT", 3],
      [{ kind: "stream_error", chunks: [], message: "The server had an error", type: "server_error" }, "PROVIDER_ERROR", 3],
    ];
    for (const [turn, code, requests] of cases) {
      const { server, provider } = await setup([turn, turn, turn]);
      const error = failure(await provider.complete({ messages: ask }));
      expect(error.code).toBe(code);
      if (code !== "PROVIDER_ERROR") expect(error.hint).not.toContain("internal problem");
      // Auth and quota are final; a rate limit or a provider glitch is tried again (maxRetries 2).
      expect(server.chatBodies()).toHaveLength(requests);
      await server.stop();
    }
    expect(failure(await (await setup([{ kind: "stream_error", chunks: [], message: "quota", code: "insufficient_quota" }])).provider.complete({ messages: ask })).hint).toContain("billing");
  });

  it("retries a stream that breaks before its first token; after tokens it keeps them and says the connection broke off", async () => {
    const before = await setup([
      { kind: "disconnect", chunks: [], cutAfterMs: 20 },
      { kind: "text", chunks: ["fine"] },
    ]);
    expect(success(await before.provider.complete({ messages: ask })).text).toBe("fine");
    expect(before.server.chatBodies()).toHaveLength(2);
    await before.server.stop();

    const read = readThenCut("The answer is");
    const after = await setup([
      { kind: "disconnect", chunks: ["The answer", " is"], cutWhen: read.cut },
      { kind: "text", chunks: ["never asked"] },
    ]);
    const error = failure(await after.provider.complete({ messages: ask }, { onChunk: (c) => c.kind === "text" && read.saw(c.text) }));
    expect(error.code).toBe("NETWORK");
    expect(error.partialText).toBe("The answer is");
    expect(error.message).not.toMatch(/could not (be )?reach/i);
    expect(after.server.chatBodies()).toHaveLength(1);
  });
});
