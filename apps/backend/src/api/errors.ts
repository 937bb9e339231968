import type { z } from "zod";
import type { ApiErrorCode } from "@weft/types";
import { notFound as serviceNotFound, validationError as serviceValidationError, type ServiceError } from "../service-error.ts";

const STATUS: Record<ApiErrorCode, number> = {
  INVALID_JSON: 400,
  INVALID_UTF8: 400,
  JSON_TOO_DEEP: 400,
  FORBIDDEN_KEY: 400,
  VALIDATION_FAILED: 400,
  BUDGET_ABOVE_CEILING: 400,
  NOT_FOUND: 404,
  REVISION_CONFLICT: 409,
  ALREADY_EXISTS: 409,
  CONFLICT: 409,
  BUILT_IN: 403,
  PAYLOAD_TOO_LARGE: 413,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  FORBIDDEN_ORIGIN: 403,
  MISDIRECTED_HOST: 421,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL: 500,
};

/**
 * A refusal that is an HTTP answer: `{ error: { code, message, details } }` with its status. Thrown
 * anywhere under a route (or the trust boundary), the app's one error handler sends it as it is.
 */
export abstract class HttpError extends Error {
  abstract readonly status: number;
  constructor(
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** Not named `toResponse`: Elysia sends an error's `toResponse()` itself, past the app's error handler, where a path with its own error shape (`/v1/`) is given it. */
  httpResponse(): Response {
    // A throttled caller is told when to try again in the header clients and proxies read, not only in the body.
    const retryAfterMs = this.details.retryAfterMs;
    const headers: Record<string, string> = typeof retryAfterMs === "number" ? { "retry-after": String(Math.max(1, Math.ceil(retryAfterMs / 1000))) } : {};
    // RFC 9110 §15.5.2: a 401 names the scheme to use. Bearer alone (no OAuth resource metadata), so MCP clients ask for a token instead of starting an OAuth flow.
    if (this.status === 401) headers["www-authenticate"] = 'Bearer realm="weft"';
    return jsonResponse({ error: { code: this.code, message: this.message, details: this.details } }, this.status, headers);
  }
}

/** A refusal with its own status and code (a stored record that cannot be read: 500 with the record's code). */
export class StatusError extends HttpError {
  constructor(
    readonly status: number,
    code: string,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, details);
    this.name = "StatusError";
  }
}

/** The API's own refusals, with the statuses of API_ERROR_CODES (@weft/types). */
export class ApiError extends HttpError {
  readonly status: number;
  constructor(
    override readonly code: ApiErrorCode,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, details);
    this.name = "ApiError";
    this.status = STATUS[code];
  }
}

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });
}

/**
 * A JSON answer whose body must be what `schema` (the route's `response` in its `…_ROUTES`) describes: the compiler
 * holds the handler to the OpenAPI document, so the two cannot drift. Not parsed at run time (the test does that).
 */
export function answer<S extends z.ZodType>(schema: S, body: z.output<S>, status = 200, headers: Record<string, string> = {}): Response {
  return jsonResponse(body, status, headers);
}

/** A service's refusal as the API's answer: same code, message and details (every ServiceErrorCode is an ApiErrorCode). */
export function apiErrorOf(error: ServiceError): ApiError {
  return new ApiError(error.code, error.message, error.details);
}

export function notFound(kind: string, id: string, hint = ""): ApiError {
  return apiErrorOf(serviceNotFound(kind, id, hint));
}

/** zod issues as the API reports them: where, what, and the readable summary. */
export function validationError(error: z.ZodError, where: string): ApiError {
  return apiErrorOf(serviceValidationError(error, where));
}
