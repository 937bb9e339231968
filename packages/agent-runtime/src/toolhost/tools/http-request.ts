import { z } from "zod";
import { HTTP_BODY_TYPES, HTTP_METHODS, HTTP_RESPONSE_TYPES, type HttpProgress, type HttpRequestOk, messageOf } from "@weft/types";
import { safeHttpRequest } from "../../net/http-client.ts";
import { NetFailure } from "../../net/net-failure.ts";
import { defineTool, type ToolEnv } from "../tool.ts";
import { applyCredential } from "./http-credential.ts";
import { ToolFailure } from "../tool-failure.ts";

export const HttpRequestArgsSchema = z
  .object({
    method: z.enum(HTTP_METHODS).default("GET"),
    url: z.string().min(1).max(8192).describe("An http:// or https:// URL"),
    query: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .optional()
      .describe("Query parameters added to the URL"),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.unknown().optional().describe("The request body: a value sent as JSON, text, or an object sent as a form"),
    bodyType: z.enum(HTTP_BODY_TYPES).default("json"),
    responseType: z.enum(HTTP_RESPONSE_TYPES).default("auto").describe("auto: JSON when the server says so, else text"),
    credential: z.string().min(1).optional().describe("The name of a stored credential (Settings → Credentials); sent only to the hosts it is bound to"),
    timeoutMs: z.number().int().min(1).optional(),
    retries: z.number().int().min(0).max(10).default(2).describe("Further attempts after a 429 or 5xx answer"),
    maxRedirects: z.number().int().min(0).max(20).default(5),
    maxResponseBytes: z.number().int().min(1).optional(),
  })
  .strict();
type HttpRequestArgs = z.output<typeof HttpRequestArgsSchema>;

/** Headers the client sets itself; a call naming them would confuse framing or routing. */
const RESERVED_HEADERS = new Set(["host", "content-length", "transfer-encoding", "connection", "accept-encoding"]);

function targetUrl(args: HttpRequestArgs): URL {
  let url: URL;
  try {
    url = new URL(args.url);
  } catch {
    throw new ToolFailure("E_SCHEMA_VALIDATION", `${JSON.stringify(args.url)} is not a URL; give a full one such as https://api.example.com/items.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ToolFailure("E_SCHEMA_VALIDATION", `Only http:// and https:// URLs can be requested, not ${url.protocol}.`);
  if (url.username || url.password) {
    throw new ToolFailure("E_SCHEMA_VALIDATION", "The URL carries a user name or password; store it as a credential (Settings → Credentials) and name it in `credential` instead.");
  }
  for (const [name, value] of Object.entries(args.query ?? {})) url.searchParams.append(name, String(value));
  url.hash = "";
  return url;
}

function encodeBody(args: HttpRequestArgs): { bytes?: Uint8Array; contentType?: string } {
  if (args.body === undefined || args.body === null) return {};
  switch (args.bodyType) {
    case "json":
      return { bytes: Buffer.from(JSON.stringify(args.body), "utf8"), contentType: "application/json" };
    case "text":
      return { bytes: Buffer.from(typeof args.body === "string" ? args.body : JSON.stringify(args.body), "utf8"), contentType: "text/plain; charset=utf-8" };
    case "form": {
      if (typeof args.body !== "object" || Array.isArray(args.body)) throw new ToolFailure("E_SCHEMA_VALIDATION", 'A form body is an object of field names to values, e.g. {"q": "weft"}.');
      const form = new URLSearchParams();
      for (const [name, value] of Object.entries(args.body)) form.append(name, typeof value === "string" ? value : JSON.stringify(value));
      return { bytes: Buffer.from(form.toString(), "utf8"), contentType: "application/x-www-form-urlencoded" };
    }
    default: {
      const never: never = args.bodyType;
      return never;
    }
  }
}

function requestHeaders(args: HttpRequestArgs, contentType: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { "user-agent": "Weft", accept: "application/json, text/*;q=0.9, */*;q=0.5", "accept-encoding": "gzip, deflate, br" };
  if (contentType) headers["content-type"] = contentType;
  for (const [name, value] of Object.entries(args.headers ?? {})) {
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower)) throw new ToolFailure("E_SCHEMA_VALIDATION", `The ${name} header is set by Weft itself; leave it out.`);
    headers[lower] = value;
  }
  return headers;
}

function parseBody(body: Buffer, truncated: boolean, contentType: string | undefined, responseType: HttpRequestArgs["responseType"], url: string): Pick<HttpRequestOk, "body" | "bodyType"> {
  const text = body.toString("utf8");
  const wantJson = responseType === "json" || (responseType === "auto" && /\bjson\b/i.test(contentType ?? ""));
  if (!wantJson || truncated || text.trim() === "") return { body: text, bodyType: "text" };
  try {
    return { body: JSON.parse(text), bodyType: "json" };
  } catch (error) {
    if (responseType === "auto") return { body: text, bodyType: "text" };
    throw new ToolFailure("E_SCHEMA_VALIDATION", `The response of ${url} is not JSON (${messageOf(error)}); set responseType to text to get it as it is.`, {
      preview: text.slice(0, 200),
    });
  }
}

async function execute(args: HttpRequestArgs, url: URL, env: ToolEnv): Promise<HttpRequestOk> {
  const started = performance.now();
  const { bytes, contentType } = encodeBody(args);
  const headers = requestHeaders(args, contentType);
  const credential = args.credential ? await applyCredential(args.credential, url, env.credentials, env.userId !== undefined ? { userId: env.userId } : {}) : undefined;
  const limits = env.limits;
  try {
    const response = await safeHttpRequest({
      method: args.method,
      url,
      headers,
      ...(bytes ? { body: bytes } : {}),
      timeoutMs: Math.min(args.timeoutMs ?? limits.httpTimeoutMs, limits.maxHttpTimeoutMs),
      retries: args.retries,
      maxRedirects: args.maxRedirects,
      maxResponseBytes: Math.min(args.maxResponseBytes ?? limits.httpResponseBytes, limits.maxHttpResponseBytes),
      maxRetryDelayMs: limits.maxHttpRetryDelayMs,
      gate: (hop) => {
        // The first URL passed the tool host's permission check; a redirect must pass the rules too.
        if (hop.href !== url.href && !env.urlRules.permits(hop.href)) {
          throw new NetFailure("E_PERMISSION_DENIED", `${url.href} redirected to ${hop.href}, which the permission rules do not allow. Request it directly to be asked, or add an allow rule.`, {
            redirect: hop.href,
          });
        }
        return env.urlRules.scopeOf(hop.href);
      },
      // A secret never follows the request to another origin, nor anywhere it is not bound.
      ...(credential ? { headersFor: credential.headersFor } : {}),
      ...(env.signal ? { signal: env.signal } : {}),
      ...(env.onProgress ? { onProgress: (progress: HttpProgress) => env.onProgress?.({ ...progress }) } : {}),
    });
    return {
      ok: true,
      status: response.status,
      statusText: response.statusText,
      url: response.url,
      redirects: response.redirects,
      headers: response.headers,
      ...parseBody(response.body, response.truncated, response.headers["content-type"], args.responseType, response.url),
      bytes: response.body.length,
      truncated: response.truncated,
      attempts: response.attempts,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    if (error instanceof NetFailure) throw new ToolFailure(error.code, error.message, error.details);
    throw error;
  }
}

/**
 * An outbound HTTP request (see net/http-client.ts for the SSRF defence). The permission target is
 * the URL, query included; named credentials are added as headers, never to the URL, and only to
 * the hosts each is bound to (see http-credential.ts).
 */
export const httpRequest = defineTool({
  name: "http.request",
  targetKind: "url",
  args: HttpRequestArgsSchema,
  plan(args, env) {
    const url = targetUrl(args);
    return { target: url.href, execute: () => execute(args, url, env) };
  },
});
