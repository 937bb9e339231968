import { HttpError } from "../api/errors.ts";
import type { ErrorFormat } from "../api/app.ts";
import type { OpenAiErrorBody } from "./openai-wire.ts";

/** Where the OpenAI-compatible routes live: every refusal under it (the trust boundary's too) speaks OpenAI's error shape. */
export const OPENAI_PREFIX = "/v1/";

/** OpenAI's `type` for a status: what its SDKs and chat UIs branch on (401 → AuthenticationError, 404 → NotFoundError, …). */
function typeOf(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** The first wrong field of a validation refusal, as OpenAI names a parameter (`messages[2].content`). */
function paramOf(details: Record<string, unknown>): string | null {
  const issues = details.issues;
  if (!Array.isArray(issues)) return null;
  const path: unknown = (issues[0] as { path?: unknown } | undefined)?.path;
  if (!Array.isArray(path) || path.length === 0) return null;
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i > 0 ? "." : ""}${String(p)}`)).join("");
}

/** A refusal under /v1/ that names OpenAI's own code (`model_not_found`, `invalid_api_key`) where one exists. */
export class OpenAiRefusal extends HttpError {
  constructor(
    readonly status: number,
    code: string,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, details);
    this.name = "OpenAiRefusal";
  }
}

export function openAiErrorBody(error: HttpError): OpenAiErrorBody {
  const code = error instanceof OpenAiRefusal ? error.code : error.status === 401 ? "invalid_api_key" : error.code.toLowerCase();
  return { error: { message: error.message, type: typeOf(error.status), param: paramOf(error.details), code } };
}

/** `{ error: { message, type, param, code } }` with the refusal's status and headers (WWW-Authenticate, Retry-After). */
export const OPENAI_ERRORS: ErrorFormat = {
  prefix: OPENAI_PREFIX,
  render(error) {
    const base = error.httpResponse();
    return new Response(JSON.stringify(openAiErrorBody(error)), { status: base.status, headers: base.headers });
  },
};
