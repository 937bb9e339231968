import { WEBHOOK_HIDDEN_HEADERS, messageOf } from "@weft/types";
import { ApiError } from "../api/errors.ts";
import { checkDepth, checkKeys, decodeUtf8 } from "../api/body-checks.ts";

/** What a `trigger:webhook` node outputs: the request as the workflow sees it. */
export interface HookRequest {
  body: unknown;
  headers: Record<string, string>;
  query: Record<string, string>;
  method: string;
}

const HIDDEN = new Set<string>(WEBHOOK_HIDDEN_HEADERS);

/**
 * The body as the workflow gets it: JSON parsed (`application/json` or `+json`), a URL-encoded form as an object
 * of fields, anything else as text; null when empty. JSON is held to the API's own depth and key checks.
 */
export function parseHookBody(contentType: string | null, bytes: Buffer | undefined): unknown {
  if (bytes === undefined || bytes.length === 0) return null;
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  const text = decodeUtf8(bytes);
  if (type === "application/json" || type.endsWith("+json")) {
    checkDepth(text);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ApiError("INVALID_JSON", `The body is sent as ${type} but is not valid JSON: ${messageOf(error)}. Send JSON, or another Content-Type to pass it on as text.`);
    }
    checkKeys(value);
    return value;
  }
  if (type === "application/x-www-form-urlencoded") return Object.fromEntries(new URLSearchParams(text));
  return text;
}

/** The request as the run sees it: headers without credentials (authorization, cookies, the hook's own token and signature). */
export function hookRequest(request: Request, body: unknown): HookRequest {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    if (!HIDDEN.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  });
  // The query alone, without parsing the whole URL again (a request's URL is already checked by the server).
  const at = request.url.indexOf("?");
  const query = at < 0 ? {} : Object.fromEntries(new URLSearchParams(request.url.slice(at + 1).split("#")[0]));
  return { body, headers, query, method: request.method };
}
