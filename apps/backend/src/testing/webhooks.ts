import type { WebhookConfig, WorkflowInput } from "@weft/types";
import { signWebhook } from "../triggers/webhook-proof.ts";

/**
 * hook (trigger:webhook) → get-path `name` of the body → text template "Hello {{0}}" → output `greeting`; the
 * hook's method goes to output `method`. Three nodes between the request and the answer.
 */
export function hookWorkflow(id: string, config: Partial<WebhookConfig> & { path: string }): WorkflowInput {
  return {
    id,
    name: `Hook ${id}`,
    nodes: [
      { id: "hook", type: "trigger:webhook", position: { x: 0, y: 0 }, config },
      { id: "name", type: "core:get-path", position: { x: 300, y: 0 }, inputs: { path: "name", default: "nobody" } },
      { id: "greet", type: "core:text-template", position: { x: 600, y: 0 }, config: { template: "Hello {{0}}" } },
      { id: "out", type: "core:workflow-output", position: { x: 900, y: 0 }, config: { name: "greeting", portType: "string" } },
      { id: "how", type: "core:workflow-output", position: { x: 900, y: 250 }, config: { name: "method", portType: "string" } },
    ],
    edges: [
      { id: "e1", source: "hook", sourceHandle: "body", target: "name", targetHandle: "value" },
      { id: "e2", source: "name", sourceHandle: "value", target: "greet", targetHandle: "values" },
      { id: "e3", source: "greet", sourceHandle: "text", target: "out", targetHandle: "value" },
      { id: "e4", source: "hook", sourceHandle: "method", target: "how", targetHandle: "value" },
    ],
  };
}

/** Headers of a request signed as a sender holding `secret` signs it (timestamp now unless given, in seconds). */
export function signedHeaders(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  const ts = String(timestamp);
  return { "content-type": "application/json", "x-weft-timestamp": ts, "x-weft-signature": signWebhook(secret, ts, new TextEncoder().encode(body)) };
}
