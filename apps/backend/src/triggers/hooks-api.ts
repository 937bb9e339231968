import { Elysia } from "elysia";
import type { Logger } from "@weft/types";
import { ApiError, jsonResponse } from "../api/errors.ts";
import { readBodyBytes } from "../api/body.ts";
import type { EventHub } from "../events/event-hub.ts";
import { followEnding } from "../runs/run-ending.ts";
import type { RunsStorage } from "../runs/runs-storage.ts";
import type { TriggerService } from "./trigger-service.ts";
import type { TriggerTable } from "./trigger-repository.ts";
import { HookRateLimit } from "./hook-rate-limit.ts";
import { checkProof } from "./webhook-proof.ts";
import { hookRequest, parseHookBody } from "./webhook-request.ts";
import { runEventStream } from "./run-event-stream.ts";
import { inCallerTrace } from "../tracing/caller-trace.ts";

/** Where hooks are served: outside `/api`, outside the session auth (the trust boundary lets them through to here). */
export const HOOKS_PREFIX = "/hooks/";

export interface HooksApiDeps {
  triggers: TriggerService;
  table: TriggerTable;
  storage: RunsStorage;
  hub: EventHub;
  /** The server's own body limit: a hook's `maxBodyBytes` never goes above it. */
  maxBodyBytes: number;
  log: Logger;
}

/** How often accepted signatures past their window are deleted (at most; on the next request after). */
const PRUNE_EVERY_MS = 60_000;

/**
 * `POST|GET|PUT /hooks/<workflowId>/<path>`: finds the active hook, counts the request against the hook's rate,
 * reads the body within its limit, checks the proof (token, or signature with a fresh timestamp, each signature
 * accepted once by any process), and only then starts a run (the signature, the run and the hook's last fire are
 * stored in one commit, `TriggerService.admit`); answers per the hook's response mode. Every refusal comes before
 * the run is stored.
 */
export function hooksApi(deps: HooksApiDeps) {
  const rate = new HookRateLimit();
  let prunedAt = 0;
  const handle = async (request: Request, workflowId: string, path: string): Promise<Response> => {
    const hook = await deps.triggers.activeHook(workflowId, path);
    if (!hook) {
      throw new ApiError("NOT_FOUND", `There is no active hook at /hooks/${workflowId}/${path}. Check the URL (the Triggers view shows each hook's), and that the workflow is switched on.`, {
        workflowId,
        path,
      });
    }
    const { config } = hook.node;
    if (request.method !== config.method) {
      throw new ApiError("NOT_FOUND", `The hook at /hooks/${workflowId}/${path} answers ${config.method}, not ${request.method}.`, { allowed: config.method });
    }
    const hookKey = `${workflowId}\n${hook.node.nodeId}`;
    const wait = rate.take(hookKey, config.ratePerMinute);
    if (wait > 0) {
      throw new ApiError("TOO_MANY_REQUESTS", `This hook takes ${config.ratePerMinute} requests a minute; retry after the time in Retry-After (or raise the node's "Requests per minute").`, {
        retryAfterMs: wait,
        reason: "HOOK_RATE",
      });
    }
    const limit = Math.min(config.maxBodyBytes, deps.maxBodyBytes);
    const bytes =
      (await readBodyBytes(
        request,
        limit,
        () => new ApiError("PAYLOAD_TOO_LARGE", `The body is larger than this hook's ${limit} bytes. Send less, or raise the node's "Max body" (up to the server's WEFT_MAX_BODY_BYTES).`, { limit }),
      )) ?? Buffer.alloc(0);
    const now = Date.now();
    const proof = checkProof(config.auth, hook.secret, request.headers, bytes, hookKey, now);
    if (!proof.ok) throw new ApiError("UNAUTHENTICATED", proof.message, { reason: proof.reason });
    // Parsed before the signature is spent, so a sender can fix a malformed body and sign again.
    const body = parseHookBody(request.headers.get("content-type"), bytes);
    if (proof.replayKey && now - prunedAt > PRUNE_EVERY_MS) {
      prunedAt = now;
      await deps.table.pruneReplays(now);
    }
    const run = await deps.triggers.admit(hook, { ...hookRequest(request, body) }, proof.replayKey);
    if (!run) throw new ApiError("UNAUTHENTICATED", "This signature was already accepted once: each request must be signed anew (a new timestamp).", { reason: "REPLAYED" });
    const runId = run.record.id;
    switch (config.response) {
      case "accepted":
        await deps.triggers.startAdmitted(run);
        return jsonResponse({ runId }, 202);
      case "wait": {
        // Followed before it is handed over, so it cannot have ended unseen: its record need not be read.
        const followed = followEnding(deps.hub, runId);
        let timer: ReturnType<typeof setTimeout> | undefined;
        try {
          await deps.triggers.startAdmitted(run);
          const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), config.waitTimeoutMs)));
          const ending = await Promise.race([followed.ending, timeout]);
          if (ending === undefined) return jsonResponse({ runId, status: "running" }, 202);
          switch (ending.status) {
            case "completed":
              return jsonResponse({ runId, status: ending.status, outputs: ending.outputs }, 200);
            case "failed": {
              // A budget's refusal is the run's own end, not a server error: the sender sees it and which budget (the
              // record, written with the run's last event, tells it from another failure).
              if ((await deps.storage.runs.get(runId))?.status === "budget_exceeded") {
                return jsonResponse({ runId, status: "budget_exceeded", message: ending.error.message, error: ending.error }, 402);
              }
              return jsonResponse({ runId, status: ending.status, error: ending.error }, 500);
            }
            case "cancelled":
            case "interrupted":
              return jsonResponse({ runId, status: ending.status, reason: ending.reason }, 503);
            default: {
              const never: never = ending;
              return never;
            }
          }
        } finally {
          clearTimeout(timer);
          followed.stop();
        }
      }
      case "stream":
        await deps.triggers.startAdmitted(run);
        return runEventStream(deps.hub, deps.storage, runId, deps.log);
      default: {
        const never: never = config.response;
        return never;
      }
    }
  };
  // A sender's `traceparent`: the run joins its trace.
  const route = ({ request, params }: { request: Request; params: Record<string, string> }) => inCallerTrace(request, () => handle(request, params.workflowId ?? "", params["*"] ?? ""));
  // The body is read here, raw (a signature covers the exact bytes): Elysia must not parse it.
  return new Elysia().post(`${HOOKS_PREFIX}:workflowId/*`, route, { parse: "none" }).get(`${HOOKS_PREFIX}:workflowId/*`, route).put(`${HOOKS_PREFIX}:workflowId/*`, route, { parse: "none" });
}
