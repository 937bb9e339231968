import { Elysia, type AnyElysia, type ElysiaConfig } from "elysia";
import { randomUUID } from "node:crypto";
import type { ApiDeps } from "./deps.ts";
import { SceneError } from "@weft/agent-runtime";
import { ApiError, apiErrorOf, HttpError, jsonResponse } from "./errors.ts";
import { healthApi } from "./health.ts";
import { llmProfilesApi } from "./llm-profiles.ts";
import { scenesApi } from "./scenes.ts";
import { conversationsApi } from "./conversations.ts";
import { settingsApi } from "./settings.ts";
import { frontendApi } from "./frontend.ts";
import { authApi } from "./auth.ts";
import { StoredRecordInvalidError } from "../storage/document-table.ts";
import { ServiceError } from "../service-error.ts";
import { sceneServiceError } from "../scenes/scene-errors.ts";
import { redactedResponse } from "./redacted-response.ts";
import { cachedAndCompressed } from "./http-caching.ts";
import { SECURITY_HEADERS, type TrustBoundary } from "../auth/trust-boundary.ts";

/** Turns anything a handler threw into the API's error shape; never a stack trace to the client. */
function errorResponse(deps: Pick<ApiDeps, "log">, code: string | number, error: unknown, request: Request): Response {
  if (error instanceof HttpError) return error.toResponse();
  // Services throw transport-free refusals; each keeps its code, message and details over HTTP.
  if (error instanceof ServiceError) return apiErrorOf(error).toResponse();
  if (error instanceof SceneError) return apiErrorOf(sceneServiceError(error)).toResponse();
  const path = new URL(request.url).pathname;
  if (code === "NOT_FOUND") return new ApiError("NOT_FOUND", `There is no route ${request.method} ${path}. docs/api.md lists them.`, { method: request.method, path }).toResponse();
  if (code === "PARSE") return new ApiError("INVALID_JSON", "The request body could not be parsed; send a JSON document.").toResponse();
  if (error instanceof StoredRecordInvalidError) {
    deps.log.error(error.message);
    return jsonResponse({ error: { code: error.code, message: error.message, details: {} } }, 500);
  }
  const incident = randomUUID();
  deps.log.error("request failed", { incident, method: request.method, path, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  return jsonResponse({ error: { code: "INTERNAL", message: `The server failed on this request (incident ${incident}); the server log has the details.`, details: { incident } } }, 500);
}

/** The HTTP API and the editor's files, one plugin per domain. */
export function createApi(deps: ApiDeps, options: { frontendDir: string; boundary: TrustBoundary; domains: AnyElysia[]; extra?: AnyElysia[]; websocket?: ElysiaConfig<"">["websocket"] }) {
  const app = new Elysia({ websocket: options.websocket })
    .onError(({ code, error, request, set }) => {
      Object.assign(set.headers, SECURITY_HEADERS);
      return errorResponse(deps, code, error, request);
    })
    // Before routing, so nothing (the /ws upgrade, a 404, the editor's files) is reached around it.
    .onRequest(({ request, set, server }) => {
      Object.assign(set.headers, SECURITY_HEADERS);
      return options.boundary.check(request, server?.requestIP(request)?.address);
    })
    // One hook: Elysia may stop at the first mapResponse that answers. Redaction first, then the bytes are final.
    .mapResponse(({ request, response }) => cachedAndCompressed(request, redactedResponse(response, deps.storage.redactor) ?? response))
    .use(authApi(options.boundary, deps.maxBodyBytes))
    .use(healthApi(deps))
    .use(llmProfilesApi(deps))
    .use(scenesApi(deps))
    .use(conversationsApi(deps))
    .use(settingsApi(deps));
  // Each domain folder's routes (workflows/, runs/, agents/: `create…(deps).api`), then the extras.
  for (const plugin of [...options.domains, ...(options.extra ?? [])]) app.use(plugin);
  return app.use(frontendApi(options.frontendDir));
}
