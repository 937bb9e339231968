import { HTTP_BODY_TYPES, HTTP_METHODS, HTTP_RESPONSE_TYPES, HttpRequestOkSchema, type ToolResult } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { OK_PORT, RESULT_PORT, callToolHost, streamProgress, toolOutputs } from "../fs/tool-call.ts";

/**
 * Sends one HTTP request through the tool host (permissions, SSRF defence, audit), yielding the
 * download's progress as chunks while the body streams in.
 */
export const httpRequest = defineNode(
  {
    type: "http:request",
    title: "HTTP request",
    description:
      "Sends an HTTP request and gives the status, headers and body (JSON parsed when the server sends JSON). Follows redirects, retries 429 and 5xx answers (honouring Retry-After), caps the body size. Loopback, private and metadata addresses are refused unless a permission rule allows the URL. Secrets come from a named credential (Settings → Credentials), never from the workflow.",
    category: "http",
    flags: { streaming: true },
    inputs: [
      { id: "url", type: "string", required: true, label: "URL", description: "An http:// or https:// URL." },
      { id: "method", type: "string", default: "GET", options: [...HTTP_METHODS], label: "Method", description: "The HTTP method (default GET)." },
      { id: "query", type: "json", label: "Query", description: "Query parameters as an object, added to the URL." },
      { id: "headers", type: "json", label: "Headers", description: "Request headers as an object of names to text values." },
      { id: "body", type: "any", label: "Body", description: "The request body: sent as JSON, as text, or (an object) as a form, per Body type." },
      { id: "bodyType", type: "string", default: "json", options: [...HTTP_BODY_TYPES], label: "Body type", description: "How the body is sent: json, text, or form (URL-encoded)." },
      { id: "responseType", type: "string", default: "auto", options: [...HTTP_RESPONSE_TYPES], label: "Response as", description: "auto: JSON when the server says so, else text." },
      { id: "credential", type: "string", label: "Credential", description: "The name of a stored credential (Settings → Credentials), added as a header; sent only to the hosts it is bound to." },
      { id: "timeoutMs", type: "integer", min: 1, label: "Timeout (ms)", description: "Time limit of one attempt (default 30000)." },
      { id: "retries", type: "integer", min: 0, max: 10, default: 2, label: "Retries", description: "Further attempts after a 429 or 5xx answer." },
      { id: "maxResponseBytes", type: "integer", min: 1, label: "Max body (bytes)", description: "Longer bodies are cut (default 2 MiB)." },
    ],
    outputs: [
      RESULT_PORT,
      OK_PORT,
      { id: "status", type: "integer", label: "Status", description: "The HTTP status code, e.g. 200." },
      { id: "body", type: "any", label: "Body", description: "The response body: parsed JSON, or text." },
      { id: "headers", type: "json", label: "Headers", description: "Response headers, names in lower case." },
    ],
  },
  async function* (inputs, ctx) {
    const result: ToolResult = yield* streamProgress((onProgress) => callToolHost(ctx, "http:request", "http.request", { ...inputs }, { onProgress }));
    return toolOutputs(result, HttpRequestOkSchema, (ok) => ({ status: ok.status, body: ok.body, headers: ok.headers }));
  },
);
