import { z } from "zod";
import { SCHEDULE_CATCH_UP_POLICIES, TriggerKindSchema, WEBHOOK_AUTH_MODES, WEBHOOK_RESPONSE_MODES } from "@weft/types";
import { ApiClient } from "../../shared/api/client.ts";
import { ok } from "../../shared/api/errors.ts";

/** A trigger as `GET /api/triggers` lists it. */
export const TriggerViewSchema = z.object({
  workflowId: z.string(),
  workflowName: z.string(),
  nodeId: z.string(),
  kind: TriggerKindSchema,
  active: z.boolean(),
  path: z.string().optional(),
  method: z.string().optional(),
  auth: z.enum(WEBHOOK_AUTH_MODES).optional(),
  response: z.enum(WEBHOOK_RESPONSE_MODES).optional(),
  hasSecret: z.boolean(),
  /** A schedule's cron expression, time zone, catch-up policy and next ticks (epoch ms, computed by the server). */
  cron: z.string().optional(),
  timezone: z.string().optional(),
  catchUp: z.enum(SCHEDULE_CATCH_UP_POLICIES).optional(),
  nextFires: z.array(z.number()).optional(),
  lastFiredAt: z.number().optional(),
  lastRunId: z.string().optional(),
  lastStatus: z.string().optional(),
  problem: z.string().optional(),
});
export type TriggerView = z.infer<typeof TriggerViewSchema>;

const ShownSecretSchema = z.object({ nodeId: z.string(), secret: z.string() });
export type ShownSecret = z.infer<typeof ShownSecretSchema>;

/** The triggers' routes: list, switch a workflow on or off, rotate a hook's secret, preview a schedule. */
class TriggersApi extends ApiClient {
  async list() {
    const r = await this.request("GET", "/api/triggers", z.object({ triggers: z.array(TriggerViewSchema) }));
    return r.ok ? ok(r.value.triggers) : r;
  }

  async setActive(workflowId: string, active: boolean) {
    const r = await this.request("PUT", `/api/workflows/${encodeURIComponent(workflowId)}/active`, z.object({ active: z.boolean(), secrets: z.array(ShownSecretSchema) }), { active });
    return r.ok ? ok(r.value.secrets) : r;
  }

  async rotate(workflowId: string, nodeId: string) {
    return this.request("POST", `/api/workflows/${encodeURIComponent(workflowId)}/triggers/${encodeURIComponent(nodeId)}/secret`, ShownSecretSchema);
  }

  /** A schedule's next five ticks, or the server's precise error (which field, an example). */
  async previewSchedule(cron: string, timezone: string | undefined) {
    const r = await this.request("POST", "/api/triggers/schedule-preview", z.object({ nextFires: z.array(z.number()) }), timezone === undefined ? { cron } : { cron, timezone });
    return r.ok ? ok(r.value.nextFires) : r;
  }
}

export const triggersApi = new TriggersApi();

/** Where a hook answers, on the server the editor is served from. */
export function hookUrl(workflowId: string, path: string, origin = window.location.origin): string {
  return `${origin}/hooks/${encodeURIComponent(workflowId)}/${path}`;
}

/** A curl command that calls the hook as its verification needs (the secret left as $WEFT_HOOK_SECRET, never written out). */
export function curlExample(t: Pick<TriggerView, "workflowId" | "path" | "method" | "auth">, origin?: string): string {
  const url = hookUrl(t.workflowId, t.path ?? "<path>", origin);
  const method = t.method ?? "POST";
  if (t.auth === "token") return `curl -X ${method} '${url}' -H "Authorization: Bearer $WEFT_HOOK_SECRET" -H 'Content-Type: application/json' -d '{"hello":"world"}'`;
  return [
    `body='{"hello":"world"}'; ts=$(date +%s)`,
    `sig=$(printf '%s.%s' "$ts" "$body" | openssl dgst -sha256 -hmac "$WEFT_HOOK_SECRET" -hex | sed 's/^.* //')`,
    `curl -X ${method} '${url}' -H 'Content-Type: application/json' -H "X-Weft-Timestamp: $ts" -H "X-Weft-Signature: sha256=$sig" -d "$body"`,
  ].join("\n");
}
