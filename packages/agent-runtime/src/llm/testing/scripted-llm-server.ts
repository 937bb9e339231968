import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { approxTokens, errorBody, modelsBody, replyChunks, replyCompletion, splitEvenly, sseLine, type WireMeta, type WireReply, type WireUsage } from "../openai-wire.ts";

/**
 * A real OpenAI-compatible HTTP server whose answers are scripted, one turn per
 * `POST /v1/chat/completions`, for testing anything that talks to an LLM over real HTTP.
 * It is built on node:http (not Bun.serve) because it must be able to cut a connection mid-stream.
 */

interface Timing {
  /** Wait before answering (before the status line). */
  delayMs?: number;
  /** Wait for this too before answering: a test holds the call in flight until it resolves it. */
  holdUntil?: Promise<unknown>;
  /** Wait between streamed chunks. */
  chunkDelayMs?: number;
  /** Stop sending for `ms` after `afterChunks` SSE chunks (the opening role chunk counts as one). */
  stall?: { afterChunks: number; ms: number };
}

export interface ScriptedToolCall {
  id?: string;
  name: string;
  /** JSON text, streamed in `argumentChunks` pieces (default 3). */
  arguments: string;
  argumentChunks?: number;
}

/** The usage a turn reports: default 10 prompt tokens and the answer's length / 4; null reports none. */
interface ScriptedUsage {
  usage?: WireUsage | null;
}

export type ScriptedTurn =
  | ({ kind: "text"; chunks: string[]; reasoning?: string[]; finishReason?: string; model?: string } & Timing & ScriptedUsage)
  | ({ kind: "tool_calls"; calls: ScriptedToolCall[]; text?: string[]; reasoning?: string[] } & Timing & ScriptedUsage)
  /** An HTTP error answer in the OpenAI error format (401, 404 model not found, 429 with retry-after…). */
  | ({ kind: "http_error"; status: number; message?: string; type?: string; code?: string; headers?: Record<string, string> } & Timing)
  /**
   * Streams these text chunks, then destroys the socket without finishing the response. The cut comes once
   * `cutWhen` settles (a test resolves it when its client has read the chunks: a busy client reads late, and
   * a reset drops what it had not read), else `cutAfterMs` (default 100) after the chunks were flushed.
   */
  | ({ kind: "disconnect"; chunks: string[]; reasoning?: string[]; cutAfterMs?: number; cutWhen?: Promise<unknown> } & Timing)
  /** Streams these text chunks, then an in-stream `{"error": …}` event, as providers do on late failures. */
  | ({ kind: "stream_error"; chunks: string[]; message: string; code?: string; type?: string } & Timing)
  /** Answers 200 with this exact body, e.g. an SSE line whose JSON is broken, or an HTML page. */
  | ({ kind: "malformed"; body: string; contentType?: string } & Timing);

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  receivedAt: number;
  /** True when the client closed the connection before the answer was complete (an abort or timeout). */
  clientClosedEarly: boolean;
}

export interface ScriptedLlmServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `url` + `/v1`: what an LLM profile's base URL is set to. */
  baseUrl: string;
  model: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Chat-completion request bodies only, in order. */
  chatBodies(): Record<string, unknown>[];
  enqueue(...turns: ScriptedTurn[]): void;
  /** Turns not yet used. */
  pending(): number;
  stop(): Promise<void>;
}

export async function startScriptedLlmServer(options: { turns?: ScriptedTurn[]; model?: string } = {}): Promise<ScriptedLlmServer> {
  const model = options.model ?? "scripted-model";
  const queue: ScriptedTurn[] = [...(options.turns ?? [])];
  const requests: RecordedRequest[] = [];
  let served = 0;
  const cutByServer = new WeakSet<ServerResponse>();

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy());
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    let body: unknown = text;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      // Kept as raw text: the test can see what malformed thing it sent.
    }
    const path = (req.url ?? "/").split("?")[0];
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]));
    const record: RecordedRequest = { method: req.method ?? "GET", path, headers, body, receivedAt: Date.now(), clientClosedEarly: false };
    requests.push(record);
    res.on("close", () => {
      if (!res.writableFinished && !cutByServer.has(res)) record.clientClosedEarly = true;
    });

    if (req.method === "GET" && path === "/v1/models") return json(res, 200, modelsBody([model], 0));
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      return json(res, 404, errorBody(`No route ${req.method} ${path}`, "invalid_request_error", "not_found"));
    }
    const turn = queue.shift();
    served++;
    if (!turn) {
      return json(res, 500, errorBody(`Scripted LLM server: no scripted turn left for request #${served}.`, "server_error"));
    }
    const request = (typeof body === "object" && body !== null ? body : {}) as { stream?: boolean; stream_options?: { include_usage?: boolean }; model?: string };
    await pause(turn.delayMs, res);
    if (turn.holdUntil) await Promise.race([turn.holdUntil, new Promise((resolve) => res.once("close", resolve))]);
    if (res.destroyed) return;
    await answer(turn, request, res, served);
  }

  async function answer(turn: ScriptedTurn, request: { stream?: boolean; stream_options?: { include_usage?: boolean }; model?: string }, res: ServerResponse, index: number): Promise<void> {
    const meta: WireMeta = { id: `chatcmpl-scripted-${index}`, model: request.model ?? model, created: 1_700_000_000 + index };
    switch (turn.kind) {
      case "http_error":
        res.writeHead(turn.status, { "content-type": "application/json", ...turn.headers });
        res.end(JSON.stringify(errorBody(turn.message ?? `HTTP ${turn.status}`, turn.type ?? "api_error", turn.code ?? null)));
        return;
      case "malformed":
        res.writeHead(200, { "content-type": turn.contentType ?? "text/event-stream" });
        res.end(turn.body);
        return;
      case "text":
      case "tool_calls": {
        const reply = toReply(turn, meta.id);
        if (turn.kind === "text" && turn.model) meta.model = turn.model;
        if (!request.stream) return json(res, 200, replyCompletion(reply, meta));
        await stream(res, replyChunks(reply, meta, request.stream_options?.include_usage === true), turn, true);
        return;
      }
      case "disconnect": {
        const chunks = replyChunks(partialReply(turn.chunks, turn.reasoning ?? []), meta, false).slice(0, -1);
        await stream(res, chunks, turn, false);
        if (turn.cutWhen) await turn.cutWhen;
        else {
          // An SSE comment line, ignored by the client: its callback says the chunks before it left the server.
          await new Promise<void>((resolve) => res.write(":\n\n", () => resolve()));
          await pause(turn.cutAfterMs ?? 100, res);
        }
        cutByServer.add(res);
        res.socket?.destroy();
        return;
      }
      case "stream_error": {
        const chunks = replyChunks(partialReply(turn.chunks, []), meta, false).slice(0, -1);
        chunks.push(errorBody(turn.message, turn.type ?? "server_error", turn.code ?? null));
        await stream(res, chunks, turn, false);
        res.end();
        return;
      }
      default: {
        const never: never = turn;
        return never;
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    model,
    requests,
    chatBodies: () => requests.filter((r) => r.path === "/v1/chat/completions" && typeof r.body === "object" && r.body !== null).map((r) => r.body as Record<string, unknown>),
    enqueue: (...turns) => void queue.push(...turns),
    pending: () => queue.length,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function toReply(turn: Extract<ScriptedTurn, { kind: "text" | "tool_calls" }>, responseId: string): WireReply {
  const contentChunks = turn.kind === "text" ? turn.chunks : (turn.text ?? []);
  const toolCalls =
    turn.kind === "tool_calls" ? turn.calls.map((c, i) => ({ id: c.id ?? `call_${responseId}_${i}`, name: c.name, argumentChunks: splitEvenly(c.arguments, c.argumentChunks ?? 3) })) : [];
  const completion = [...contentChunks, ...toolCalls.flatMap((c) => c.argumentChunks)].join("");
  return {
    contentChunks,
    reasoningChunks: turn.reasoning ?? [],
    toolCalls,
    finishReason: turn.kind === "text" ? (turn.finishReason ?? "stop") : "tool_calls",
    usage: turn.usage === undefined ? { prompt_tokens: 10, completion_tokens: approxTokens(completion) } : turn.usage,
  };
}

function partialReply(chunks: string[], reasoning: string[]): WireReply {
  return { contentChunks: chunks, reasoningChunks: reasoning, toolCalls: [], finishReason: "stop", usage: { prompt_tokens: 0, completion_tokens: 0 } };
}

async function stream(res: ServerResponse, chunks: object[], timing: Timing, done: boolean): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  for (const [index, c] of chunks.entries()) {
    if (res.destroyed) return;
    if (timing.stall && index === timing.stall.afterChunks) await pause(timing.stall.ms, res);
    else if (index > 0) await pause(timing.chunkDelayMs, res);
    if (res.destroyed) return;
    await new Promise<void>((resolve) => res.write(sseLine(c), () => resolve()));
  }
  if (done && !res.destroyed) res.end(sseLine("[DONE]"));
}

function json(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

/** Waits, ending early when the connection closes (so a client's abort frees the server at once). */
function pause(ms: number | undefined, res: ServerResponse): Promise<void> {
  if (!ms) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      res.off("close", done);
      resolve();
    }
    res.once("close", done);
  });
}
