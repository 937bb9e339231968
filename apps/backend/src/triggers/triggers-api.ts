import { Elysia } from "elysia";
import { z } from "zod";
import { SCHEDULE_CATCH_UP_POLICIES, TriggerKindSchema, WEBHOOK_AUTH_MODES, WEBHOOK_RESPONSE_MODES } from "@weft/types";
import { checkSchedule } from "@weft/nodes";
import { ApiError, jsonResponse } from "../api/errors.ts";
import { readBody } from "../api/body.ts";
import { route, type ApiRoute } from "../api/openapi-routes.ts";
import { actorOf } from "../auth/principal.ts";
import { UPCOMING_TICKS, type TriggerService } from "./trigger-service.ts";

const ActiveBody = z.object({ active: z.boolean() }).strict();
const ShownSecret = z.object({ nodeId: z.string(), secret: z.string() });
const ActiveAnswer = z.object({ workflowId: z.string(), active: z.boolean(), secrets: z.array(ShownSecret) });
const TriggerViewSchema = z.object({
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
  cron: z.string().optional(),
  timezone: z.string().optional(),
  catchUp: z.enum(SCHEDULE_CATCH_UP_POLICIES).optional(),
  nextFires: z.array(z.number()).optional(),
  lastFiredAt: z.number().optional(),
  lastRunId: z.string().optional(),
  lastStatus: z.string().optional(),
  problem: z.string().optional(),
});

/** A schedule config to preview: the node's own fields (checked by `checkSchedule`, which names the wrong one). */
const PreviewBody = z.object({ cron: z.string().max(200), timezone: z.string().max(100).optional() }).strict();
const PreviewAnswer = z.object({ nextFires: z.array(z.number()) });

/** A secret is in this answer only: no cache may keep it. */
const NO_STORE = { "cache-control": "no-store" };

/** The triggers' session routes: list them, switch a workflow on or off, rotate a hook's secret. */
export function triggersApi(triggers: TriggerService, maxBodyBytes: number) {
  const who = (request: Request): string => {
    const actor = actorOf(request);
    // Every signed-in principal has a user id (the access token's is the bootstrap owner's); this is a guard, not a path.
    if (actor === undefined) throw new ApiError("FORBIDDEN", "Only a signed-in user may switch triggers on: their runs act for that user.");
    return actor;
  };
  return new Elysia()
    .get("/api/triggers", async () => jsonResponse({ triggers: await triggers.list() }))
    .put("/api/workflows/:id/active", async ({ params, request }) => {
      const body = await readBody(request, ActiveBody, maxBodyBytes);
      return jsonResponse(await triggers.setActive(params.id, body.active, who(request)), 200, NO_STORE);
    })
    .post("/api/workflows/:id/triggers/:nodeId/secret", async ({ params }) => jsonResponse(await triggers.rotate(params.id, params.nodeId), 200, NO_STORE))
    .post("/api/triggers/schedule-preview", async ({ request }) => {
      const body = await readBody(request, PreviewBody, maxBodyBytes);
      const checked = checkSchedule(body);
      if (!checked.ok) {
        throw new ApiError("VALIDATION_FAILED", `This schedule cannot fire: ${checked.problem.message}.`, {
          issues: [{ path: [checked.problem.field], message: checked.problem.message, code: "custom" }],
        });
      }
      return jsonResponse({ nextFires: checked.schedule.upcoming(UPCOMING_TICKS, Date.now()) });
    });
}

export const TRIGGERS_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/triggers", "triggers", "Every trigger node of every workflow: kind, path, on or off, last fire and its run's status", {
    response: z.object({ triggers: z.array(TriggerViewSchema) }),
  }),
  route("PUT", "/api/workflows/:id/active", "triggers", "Switch a workflow's triggers on or off (new hook secrets are in this answer only)", { body: ActiveBody, response: ActiveAnswer }),
  route("POST", "/api/workflows/:id/triggers/:nodeId/secret", "triggers", "A new secret for a webhook node, shown in this answer only (the old one stops working)", { response: ShownSecret }),
  route("POST", "/api/triggers/schedule-preview", "triggers", "A schedule's next five ticks (epoch ms), or which field is wrong (cron or timezone) and an example", {
    body: PreviewBody,
    response: PreviewAnswer,
  }),
];
