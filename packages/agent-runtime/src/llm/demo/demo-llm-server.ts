import { errorBody, modelBody, modelsBody, replyChunks, replyCompletion, sseLine, type WireMeta } from "../openai-wire.ts";
import { planDemoReply } from "./demo-reply.ts";
import { DemoRequestSchema } from "./demo-request.ts";

export const DEMO_MODEL = "weft-demo";

/** Fixed so that the same request always gets byte-identical answers. */
const CREATED = 1_735_689_600;

export interface DemoLlm {
  /** `http://<host>:<port>` */
  url: string;
  /** `url` + `/v1`: the base URL of an LLM profile using the demo. */
  baseUrl: string;
  port: number;
  stop(): Promise<void>;
}

export interface DemoLlmOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  hostname?: string;
}

/**
 * Weft's embedded default LLM: a deterministic, offline, OpenAI-compatible endpoint
 * (`POST /v1/chat/completions`, streaming or not, and `GET /v1/models`). The runtime reaches it
 * through the same `openai` SDK path as any real provider.
 */
export function startDemoLlm(options: DemoLlmOptions = {}): DemoLlm {
  const hostname = options.hostname ?? "127.0.0.1";
  const server = Bun.serve({
    port: options.port ?? 0,
    hostname,
    fetch: demoRequestHandler(),
  });
  const url = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${server.port}`;
  return { url, baseUrl: `${url}/v1`, port: server.port ?? 0, stop: () => server.stop(true) };
}

/**
 * The demo's request handler. Each answer gets its own id (a hash of the request and the handler's
 * answer count), as a provider's would; the same requests in the same order get the same ids.
 */
export function demoRequestHandler(): (req: Request) => Promise<Response> {
  let answered = 0;
  return async (req) => {
    const path = new URL(req.url).pathname.replace(/\/+$/, "");
    if (req.method === "GET" && path === "/v1/models") return json(200, modelsBody([DEMO_MODEL], CREATED));
    if (req.method === "GET" && path.startsWith("/v1/models/")) {
      const id = decodeURIComponent(path.slice("/v1/models/".length));
      return id === DEMO_MODEL ? json(200, modelBody(DEMO_MODEL, CREATED)) : json(404, unknownModel(id));
    }
    if (path !== "/v1/chat/completions") {
      return json(404, errorBody(`Unknown endpoint ${req.method} ${path}. The demo LLM serves POST /v1/chat/completions and GET /v1/models.`, "invalid_request_error", "unknown_url"));
    }
    if (req.method !== "POST") return json(405, errorBody(`Use POST for ${path}.`, "invalid_request_error", "method_not_allowed"));

    const text = await req.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return json(400, errorBody("The request body is not valid JSON.", "invalid_request_error", "invalid_json"));
    }
    const parsed = DemoRequestSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue.path.length > 0 ? issue.path.join(".") : "body";
      return json(400, errorBody(`Invalid request at ${where}: ${issue.message}`, "invalid_request_error", "invalid_request", where));
    }
    const request = parsed.data;
    if (request.model !== DEMO_MODEL) return json(404, unknownModel(request.model));
    const id = `chatcmpl-demo-${fnv1a(text)}${(++answered).toString(16).padStart(4, "0")}`;
    const meta: WireMeta = { id, model: request.model, created: CREATED };
    const reply = planDemoReply(request, id);
    const choices = request.n ?? 1;
    if (!request.stream) return json(200, replyCompletion(reply, meta, choices));

    const lines = replyChunks(reply, meta, request.stream_options?.include_usage === true, choices).map((c) => sseLine(c));
    lines.push(sseLine("[DONE]"));
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const line = lines.shift();
        if (line === undefined) controller.close();
        else controller.enqueue(encoder.encode(line));
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  };
}

/** OpenAI's answer to a model it does not serve. */
function unknownModel(model: string): object {
  return errorBody(`The model \`${model}\` does not exist or you do not have access to it. The demo LLM serves "${DEMO_MODEL}".`, "invalid_request_error", "model_not_found", "model");
}

function json(status: number, body: object): Response {
  return Response.json(body, { status });
}

/** 32-bit FNV-1a, hex: a stable id for a request text. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}
