import { context, propagation } from "@opentelemetry/api";
import { messageOf } from "@weft/types";
import type { IncomingMessage } from "node:http";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Readable } from "node:stream";
import type { HttpProgress } from "@weft/types";
import { NetFailure } from "./net-failure.ts";
import { pinnedExchange, type AddressScope } from "./pinned-exchange.ts";

export interface SafeHttpRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** Per attempt: connecting, redirects and reading the body. */
  timeoutMs: number;
  /** Further attempts after a 429 or 5xx answer. */
  retries: number;
  maxRedirects: number;
  maxResponseBytes: number;
  /** Longest wait before a retry; a `Retry-After` asking for more ends the retries. */
  maxRetryDelayMs: number;
  /**
   * Decides each URL before anything is sent to it (the first and every redirect): which addresses
   * it may reach; throws a NetFailure to refuse it.
   */
  gate(url: URL): AddressScope;
  /** Headers added for one URL (credentials: only for the first request's origin). */
  headersFor?(url: URL): Record<string, string>;
  signal?: AbortSignal;
  onProgress?(progress: HttpProgress): void;
}

export interface SafeHttpResponse {
  status: number;
  statusText: string;
  url: string;
  redirects: string[];
  headers: Record<string, string>;
  body: Buffer;
  truncated: boolean;
  attempts: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const PROGRESS_STEP_BYTES = 64 * 1024;
const BASE_BACKOFF_MS = 250;

function retryable(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/** The wait a `Retry-After` header asks for (seconds or an HTTP date), if any. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", stop, { once: true });
  });
}

function flatHeaders(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  return out;
}

function decoded(res: IncomingMessage): Readable {
  switch (res.headers["content-encoding"]?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return res.pipe(createGunzip());
    case "deflate":
      return res.pipe(createInflate());
    case "br":
      return res.pipe(createBrotliDecompress());
    default:
      return res;
  }
}

/** Reads the (decompressed) body up to `max` bytes, reporting progress; past the cap it stops reading. */
async function readBody(res: IncomingMessage, max: number, onProgress: SafeHttpRequest["onProgress"]): Promise<{ body: Buffer; truncated: boolean }> {
  const length = Number(res.headers["content-length"]);
  const totalBytes = Number.isFinite(length) && res.headers["content-encoding"] === undefined ? length : undefined;
  const chunks: Buffer[] = [];
  let received = 0;
  let reported = 0;
  let truncated = false;
  const stream = decoded(res);
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const room = max - received;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      received += room;
      truncated = true;
      break;
    }
    chunks.push(chunk);
    received += chunk.length;
    if (onProgress && received - reported >= PROGRESS_STEP_BYTES) {
      reported = received;
      onProgress({ receivedBytes: received, ...(totalBytes !== undefined ? { totalBytes } : {}) });
    }
  }
  if (truncated) res.destroy();
  if (onProgress && reported > 0 && reported !== received) onProgress({ receivedBytes: received, ...(totalBytes !== undefined ? { totalBytes } : {}) });
  return { body: Buffer.concat(chunks), truncated };
}

function networkFailure(error: unknown, url: URL, timeoutMs: number, outer: AbortSignal | undefined): NetFailure {
  if (error instanceof NetFailure) return error;
  if (outer?.aborted) return new NetFailure("E_ABORTED", `The request to ${url.origin} was cancelled.`);
  const name = error instanceof Error ? error.name : "";
  if (name === "TimeoutError" || name === "AbortError") {
    return new NetFailure("E_TIMEOUT", `${url.origin} did not answer within ${timeoutMs} ms. Raise the timeout if the server is slow.`, { timeoutMs });
  }
  const message = messageOf(error);
  return new NetFailure("E_NETWORK", `The request to ${url.origin} failed: ${message}.`, { url: url.origin });
}

/**
 * The active trace's W3C `traceparent` (and `tracestate`) when the process traces, so the target can join the run's
 * trace; nothing otherwise (no propagator is registered then). A header the request sets itself wins.
 */
function withTraceHeaders(own: Record<string, string>): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const injected = Object.keys(carrier);
  if (injected.length === 0) return own;
  const set = new Set(Object.keys(own).map((name) => name.toLowerCase()));
  for (const name of injected) if (set.has(name)) delete carrier[name];
  return { ...carrier, ...own };
}

/** One attempt: follows redirects by hand, each hop through the gate, and reads the final body. */
async function attempt(request: SafeHttpRequest, signal: AbortSignal): Promise<Omit<SafeHttpResponse, "attempts">> {
  let url = request.url;
  let method = request.method;
  let body = request.body;
  let headers = withTraceHeaders(request.headers);
  const redirects: string[] = [];
  for (;;) {
    const scope = request.gate(url);
    const res = await pinnedExchange({ url, method, headers: { ...headers, ...request.headersFor?.(url) }, ...(body ? { body } : {}), scope, signal });
    const location = res.headers.location;
    if (REDIRECTS.has(res.statusCode ?? 0) && location !== undefined) {
      res.resume();
      if (redirects.length >= request.maxRedirects) {
        throw new NetFailure("E_TOO_MANY_REDIRECTS", `${request.url.href} redirected more than ${request.maxRedirects} times (last to ${location}).`, { redirects });
      }
      const next = new URL(location, url);
      if (next.protocol !== "http:" && next.protocol !== "https:") throw new NetFailure("E_PERMISSION_DENIED", `${url.href} redirected to ${next.protocol} URL, which is not followed.`);
      // As browsers do: a 303, or a 301/302 after a POST, continues as a GET without the body.
      if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === "POST")) {
        method = method === "HEAD" ? "HEAD" : "GET";
        body = undefined;
        headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !/^content-(type|length)$/i.test(name)));
      }
      url = next;
      redirects.push(url.href);
      continue;
    }
    const { body: received, truncated } = method === "HEAD" ? { body: Buffer.alloc(0), truncated: false } : await readBody(res, request.maxResponseBytes, request.onProgress);
    return { status: res.statusCode ?? 0, statusText: res.statusMessage ?? "", url: url.href, redirects, headers: flatHeaders(res), body: received, truncated };
  }
}

/**
 * An outbound HTTP request that cannot be turned against the inside: every URL (redirects too)
 * passes `gate`, and every connection goes to an address checked against the scope the gate gave
 * (see pinned-exchange.ts). A 429 or 5xx answer is retried up to `retries` times with exponential
 * backoff, or after the server's `Retry-After` when it gives one.
 */
export async function safeHttpRequest(request: SafeHttpRequest): Promise<SafeHttpResponse> {
  for (let attempts = 1; ; attempts++) {
    const timeout = AbortSignal.timeout(request.timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    let response: Omit<SafeHttpResponse, "attempts">;
    try {
      response = await attempt(request, signal);
    } catch (error) {
      throw networkFailure(error, request.url, request.timeoutMs, request.signal);
    }
    if (!retryable(response.status) || attempts > request.retries) return { ...response, attempts };
    const asked = retryAfterMs(response.headers["retry-after"]);
    if (asked !== undefined && asked > request.maxRetryDelayMs) return { ...response, attempts };
    const wait = asked ?? Math.min(request.maxRetryDelayMs, BASE_BACKOFF_MS * 2 ** (attempts - 1) * (1 + Math.random() / 2));
    try {
      await sleep(wait, request.signal ?? new AbortController().signal);
    } catch {
      throw new NetFailure("E_ABORTED", `The request to ${request.url.origin} was cancelled while waiting to retry.`);
    }
  }
}
