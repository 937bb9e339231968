import { Elysia, type AnyElysia, type ElysiaConfig } from "elysia";
import { randomUUID } from "node:crypto";
import type { Logger, SecretRedactor } from "@weft/types";
import { ApiError, apiErrorOf, HttpError, StatusError } from "./errors.ts";
import { frontendApi } from "./frontend.ts";
import { StoredRecordInvalidError } from "../storage/document-table.ts";
import { ServiceError } from "../service-error.ts";
import { redactedResponse } from "./redacted-response.ts";
import { cachedAndCompressed } from "./http-caching.ts";
import { SECURITY_HEADERS } from "./security-headers.ts";

/** What every request passes before routing (the trust boundary, ../auth/trust-boundary.ts): a Response stops it there. */
export interface RequestGate {
  check(request: Request, clientAddress?: string): Promise<Response | undefined>;
}

/** Turns an error a domain throws in its own terms (e.g. a scene runtime's `SceneError`) into a service refusal, or undefined when it is not one. */
export type RefusalOf = (error: unknown) => ServiceError | undefined;

export interface ApiOptions {
  frontendDir: string;
  gate: RequestGate;
  /** Every route plugin, in order (the composition, ../server.ts, lists each domain's); the editor's files come after them. */
  routes: AnyElysia[];
  refusals?: RefusalOf[];
  /**
   * Paths that answer errors in another protocol's shape (the OpenAI-compatible `/v1/`): every refusal there,
   * the trust boundary's included, goes through `render` instead of the API's `{ error: { code, message, details } }`.
   */
  errorFormats?: ErrorFormat[];
  websocket?: ElysiaConfig<"">["websocket"];
}

/** An error shape of its own for the paths under `prefix` (e.g. `/v1/`). */
export interface ErrorFormat {
  prefix: string;
  render(error: HttpError): Response;
}

/** Anything a handler threw, as the HTTP refusal it answers with; never a stack trace to the client. */
function httpErrorOf(log: Logger, refusals: readonly RefusalOf[], code: string | number, error: unknown, request: Request): HttpError {
  if (error instanceof HttpError) return error;
  // Services throw transport-free refusals; each keeps its code, message and details over HTTP.
  if (error instanceof ServiceError) return apiErrorOf(error);
  for (const refusalOf of refusals) {
    const refusal = refusalOf(error);
    if (refusal) return apiErrorOf(refusal);
  }
  const path = new URL(request.url).pathname;
  if (code === "NOT_FOUND") return new ApiError("NOT_FOUND", `There is no route ${request.method} ${path}. docs/api.md lists them.`, { method: request.method, path });
  if (code === "PARSE") return new ApiError("INVALID_JSON", "The request body could not be parsed; send a JSON document.");
  if (error instanceof StoredRecordInvalidError) {
    log.error(error.message);
    return new StatusError(500, error.code, error.message);
  }
  const incident = randomUUID();
  log.error("request failed", { incident, method: request.method, path, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  return new ApiError("INTERNAL", `The server failed on this request (incident ${incident}); the server log has the details.`, { incident });
}

/** The error's answer in the shape its path speaks: a format's whose prefix it starts with, else the API's. */
function errorResponse(error: HttpError, request: Request, formats: readonly ErrorFormat[]): Response {
  const path = new URL(request.url).pathname;
  const format = formats.find((f) => path.startsWith(f.prefix));
  return format ? format.render(error) : error.httpResponse();
}

/** The HTTP API and the editor's files: the gate, the error shape, redaction and caching around the domains' plugins. */
export function createApi(deps: { log: Logger; redactor: SecretRedactor }, options: ApiOptions) {
  const app = new Elysia({ websocket: options.websocket })
    .onError(({ code, error, request, set }) => {
      Object.assign(set.headers, SECURITY_HEADERS);
      return errorResponse(httpErrorOf(deps.log, options.refusals ?? [], code, error, request), request, options.errorFormats ?? []);
    })
    // Before routing, so nothing (the /ws upgrade, a 404, the editor's files) is reached around it.
    .onRequest(({ request, set, server }) => {
      Object.assign(set.headers, SECURITY_HEADERS);
      return options.gate.check(request, server?.requestIP(request)?.address);
    })
    // One hook: Elysia may stop at the first mapResponse that answers. Redaction first, then the bytes are final.
    .mapResponse(({ request, response }) => cachedAndCompressed(request, redactedResponse(response, deps.redactor) ?? response));
  for (const plugin of options.routes) app.use(plugin);
  return app.use(
    frontendApi(
      options.frontendDir,
      (options.errorFormats ?? []).map((f) => f.prefix),
    ),
  );
}
