import { NodeFailure, WEBHOOK_AUTH_MODES, WEBHOOK_METHODS, WEBHOOK_RESPONSE_MODES, WEBHOOK_TRIGGER_TYPE, WebhookConfigSchema } from "@weft/types";
import { defineNode } from "../define-node.ts";

/**
 * Starts its workflow when `/hooks/<workflowId>/<path>` is called (once the workflow is switched active). The
 * server hands the request on as this node's outputs (it pins them on the run's copy of the workflow, so the node
 * does not run then); run by hand, it gives an empty request, so the rest of the workflow can be tried.
 */
export const webhookTrigger = defineNode(
  {
    type: WEBHOOK_TRIGGER_TYPE,
    title: "Webhook trigger",
    description:
      "Starts the workflow when POST|GET|PUT /hooks/<workflowId>/<path> is called with the hook's secret (a bearer token, or an HMAC-SHA256 signature of `timestamp.body`). Outputs the request's body (JSON, form fields or text), headers (without credentials), query and method. The workflow must be switched active (Triggers).",
    category: "trigger",
    inputs: [],
    outputs: [
      { id: "body", type: "any", label: "Body", description: "The request body: parsed JSON, form fields as an object, or text; null when empty." },
      { id: "headers", type: "json", label: "Headers", description: "Request headers, names in lower case; authorization, cookies and the hook's token and signature are left out." },
      { id: "query", type: "json", label: "Query", description: "The URL's query parameters as an object of names to text values." },
      { id: "method", type: "string", label: "Method", description: "POST, GET or PUT." },
    ],
    config: [
      { id: "path", kind: "text", required: true, label: "Path", description: "The hook's path under /hooks/<workflowId>/, e.g. `github/push`." },
      { id: "method", kind: "select", options: [...WEBHOOK_METHODS], default: "POST", label: "Method", description: "The HTTP method the hook answers." },
      {
        id: "auth",
        kind: "select",
        options: [...WEBHOOK_AUTH_MODES],
        default: "hmac",
        label: "Verification",
        description: "hmac: X-Weft-Signature: sha256=<hex HMAC of `timestamp.body`> with X-Weft-Timestamp (seconds); token: Authorization: Bearer <secret> or X-Weft-Token.",
      },
      {
        id: "response",
        kind: "select",
        options: [...WEBHOOK_RESPONSE_MODES],
        default: "accepted",
        label: "Response",
        description: "accepted: 202 with the run's id at once; wait: the workflow's outputs (202 with the id after the timeout); stream: the run's events (SSE).",
      },
      { id: "waitTimeoutMs", kind: "integer", min: 100, max: 120000, default: 30000, label: "Wait timeout (ms)", description: "Wait mode: how long to wait for the outputs before answering 202." },
      { id: "maxBodyBytes", kind: "integer", min: 1, default: 1048576, label: "Max body (bytes)", description: "Larger bodies are refused with 413 (never more than the server's own limit)." },
      { id: "ratePerMinute", kind: "integer", min: 1, max: 100000, default: 60, label: "Requests per minute", description: "More are refused with 429 and Retry-After." },
    ],
  },
  (_inputs, ctx) => {
    const config = WebhookConfigSchema.safeParse(ctx.config);
    if (!config.success) throw new NodeFailure("INVALID_CONFIG", `trigger:webhook: ${config.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}.`);
    return { body: null, headers: {}, query: {}, method: config.data.method };
  },
);
