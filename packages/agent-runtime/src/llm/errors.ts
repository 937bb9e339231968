import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { LlmError, type LlmErrorCode, messageOf } from "@weft/types";

/** What the classifier needs to know about the call that failed, to write a useful hint. */
export interface FailureContext {
  baseUrl: string;
  model: string;
  timeoutMs: number;
  hasApiKey: boolean;
  /** Our watchdog fired (no progress within timeoutMs). */
  timedOut: boolean;
  /** The caller's signal fired. */
  cancelled: boolean;
  partialText: string;
  partialReasoning: string;
  /** The response had started streaming (a break is then not "could not reach"). */
  started: boolean;
}

const CONTEXT_LENGTH_PATTERN = /context[_ ]length|context window|maximum context|too many tokens|prompt is too long|reduce the length/i;

/** Turns anything the SDK or fetch threw into a coded `LlmError`. */
export function classifyLlmFailure(error: unknown, ctx: FailureContext): LlmError {
  const partial = {
    ...(ctx.partialText ? { partialText: ctx.partialText } : {}),
    ...(ctx.partialReasoning ? { partialReasoning: ctx.partialReasoning } : {}),
  };
  const make = (code: LlmErrorCode, message: string, extra: { status?: number; retryAfterMs?: number } = {}) =>
    new LlmError({ code, message, hint: hintFor(code, ctx, extra.retryAfterMs), ...extra, ...partial });

  if (ctx.timedOut || error instanceof APIConnectionTimeoutError) {
    return make("TIMEOUT", `No response from the model within ${ctx.timeoutMs} ms.`);
  }
  if (ctx.cancelled || error instanceof APIUserAbortError) return make("CANCELLED", "The LLM call was cancelled.");

  if (error instanceof APIError && typeof error.status === "number") {
    const status = error.status;
    const message = providerMessage(error);
    if (isQuota(error)) return make("QUOTA", `The provider says the account has no quota left (HTTP ${status}): ${message}`, { status });
    if (status === 401 || status === 403) return make("AUTH", `The provider refused the credentials (HTTP ${status}): ${message}`, { status });
    if (status === 404) return make("MODEL_NOT_FOUND", `Model "${ctx.model}" or the endpoint was not found (HTTP 404): ${message}`, { status });
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(error.headers);
      return make("RATE_LIMIT", `Rate limited by the provider (HTTP 429): ${message}`, { status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
    }
    if (status === 400 || status === 413 || status === 422) {
      if (isContextLength(error, message)) return make("CONTEXT_LENGTH", `The request exceeds the model's context window: ${message}`, { status });
      return make("BAD_REQUEST", `The provider rejected the request (HTTP ${status}): ${message}`, { status });
    }
    if (status >= 500) return make("PROVIDER_ERROR", `The provider failed (HTTP ${status}): ${message}`, { status });
    return make("BAD_RESPONSE", `Unexpected HTTP ${status} from the endpoint: ${message}`, { status });
  }
  if (ctx.started && (error instanceof APIConnectionError || !(error instanceof APIError || error instanceof SyntaxError))) {
    return make("NETWORK", `The connection to ${ctx.baseUrl} broke off after the model had started answering (${messageOf(error)}).`);
  }
  if (error instanceof APIConnectionError) return make("NETWORK", `Could not reach ${ctx.baseUrl}: ${causeMessage(error)}`);
  if (error instanceof APIError) return inStreamError(error, make);
  if (error instanceof SyntaxError) return make("BAD_RESPONSE", `The endpoint sent a malformed response: ${error.message}`);
  return make("NETWORK", `The connection to ${ctx.baseUrl} failed: ${messageOf(error)}`);
}

/**
 * An error event inside the stream (the provider failed after answering 200): read by its code and
 * type as the HTTP statuses are read, so a bad key or an empty quota is not retried as a glitch.
 */
function inStreamError(error: APIError, make: (code: LlmErrorCode, message: string) => LlmError): LlmError {
  const message = providerMessage(error);
  const said = `The provider reported an error mid-stream: ${message}`;
  const code = `${String(error.code ?? "")} ${String(error.type ?? "")}`.toLowerCase();
  if (isQuota(error)) return make("QUOTA", said);
  if (/invalid_api_key|authentication|unauthorized|permission|forbidden|access_denied/.test(code)) return make("AUTH", said);
  if (/rate_limit|too_many_requests/.test(code)) return make("RATE_LIMIT", said);
  if (/model_not_found/.test(code)) return make("MODEL_NOT_FOUND", said);
  if (isContextLength(error, message)) return make("CONTEXT_LENGTH", `The request exceeds the model's context window: ${message}`);
  if (/invalid_request/.test(code)) return make("BAD_REQUEST", said);
  return make("PROVIDER_ERROR", said);
}

function isQuota(error: APIError): boolean {
  return /insufficient_quota|billing|quota_exceeded|credit/.test(`${String(error.code ?? "")} ${String(error.type ?? "")}`.toLowerCase());
}

export function streamEndedEarly(ctx: FailureContext, chunksSeen: number): LlmError {
  const partial = {
    ...(ctx.partialText ? { partialText: ctx.partialText } : {}),
    ...(ctx.partialReasoning ? { partialReasoning: ctx.partialReasoning } : {}),
  };
  if (chunksSeen === 0) {
    return new LlmError({
      code: "BAD_RESPONSE",
      message: `The endpoint answered without any chat-completion stream events.`,
      hint: hintFor("BAD_RESPONSE", ctx),
    });
  }
  return new LlmError({
    code: "NETWORK",
    message: `The stream from ${ctx.baseUrl} ended before the model finished (no finish_reason after ${chunksSeen} chunks).`,
    hint: hintFor("NETWORK", ctx),
    ...partial,
  });
}

const PROFILE_HINT = "Create an LLM profile under Settings → LLM profiles, or pick an existing profile id.";

export function profileNotFound(profileId: string | undefined): LlmError {
  return new LlmError({
    code: "PROFILE_NOT_FOUND",
    message: profileId ? `No LLM profile with id "${profileId}".` : "No default LLM profile is configured.",
    hint: PROFILE_HINT,
  });
}

/** How to get past CALLER_MODEL_UNAVAILABLE. */
export const CALLER_MODEL_HINT =
  'Call the skill through /mcp from a client that offers sampling (the "sampling" capability), or set the LLM node\'s "Caller\'s model" to "preferred" or "no" so an LLM profile answers otherwise.';

function hintFor(code: LlmErrorCode, ctx: FailureContext, retryAfterMs?: number): string {
  switch (code) {
    case "AUTH":
      return ctx.hasApiKey
        ? "Check the API key of this LLM profile (Settings → LLM profiles) and that it may use this model."
        : "This LLM profile has no API key; add one under Settings → LLM profiles.";
    case "QUOTA":
      return "The account behind this API key has no quota or credit left: check its plan and billing with the provider, or use another LLM profile.";
    case "RATE_LIMIT":
      return retryAfterMs !== undefined
        ? `The provider asks to wait ${Math.ceil(retryAfterMs / 1000)} s; retry later or lower the request rate.`
        : "Retry later or lower the request rate; raise the profile's plan limits if it keeps happening.";
    case "TIMEOUT":
      return `Raise the profile's timeout (now ${ctx.timeoutMs} ms) or check that ${ctx.baseUrl} is responsive.`;
    case "NETWORK":
      return `Check the base URL (${ctx.baseUrl}) and that the server is running and reachable, then retry.`;
    case "BAD_RESPONSE":
      return `Check that ${ctx.baseUrl} is an OpenAI-compatible API base URL (it usually ends in /v1).`;
    case "CONTEXT_LENGTH":
      return "Shorten the request: lower the history budget (maxMessages / maxChars), or pick a model with a larger context window.";
    case "MODEL_NOT_FOUND":
      return `Check the model name "${ctx.model}" (GET ${ctx.baseUrl}/models lists the available ones) and that the base URL includes its /v1 suffix.`;
    case "CANCELLED":
      return "The call was stopped on request; run it again to get an answer.";
    case "BAD_REQUEST":
      return "Check the tools' JSON Schemas, the message order (tool results right after their assistant tool_calls) and the model settings.";
    case "PROVIDER_ERROR":
      return "The provider had an internal problem; retry in a moment.";
    case "PROFILE_NOT_FOUND":
      return PROFILE_HINT;
    case "BUDGET_EXCEEDED":
      return "Raise the budget that was reached (Settings → Budgets, or the workflow's, agent's or scene's own budget), or wait for the next day's budget.";
    case "CALLER_MODEL_UNAVAILABLE":
      return CALLER_MODEL_HINT;
    default: {
      const never: never = code;
      return never;
    }
  }
}

function providerMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  if (body && typeof body.message === "string") return body.message;
  return error.message.replace(/^\d{3}\s+/, "");
}

function isContextLength(error: APIError, message: string): boolean {
  return error.code === "context_length_exceeded" || CONTEXT_LENGTH_PATTERN.test(message);
}

function causeMessage(error: APIConnectionError): string {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? cause.message : error.message;
}

/**
 * A base URL fit for messages, logs and turn records: credentials in the user-info part or the
 * query string (some gateways take `?api-key=`) are never shown.
 */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    return "(invalid URL)";
  }
}

/** `retry-after-ms`, or `retry-after` in seconds or as an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
