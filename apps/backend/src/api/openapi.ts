import { Elysia } from "elysia";
import { jsonResponse } from "./errors.ts";
import type { ApiRoute } from "./openapi-routes.ts";
import { openApiDocument, type LiveRoute } from "./openapi-document.ts";
import { referencePage } from "./openapi-reference.ts";

/**
 * `GET /api/openapi.json` and `GET /api/reference` (the same document as a page, rendered here: no
 * script, so it works under the CSP and offline). Authenticated like the rest of /api/: the document
 * holds no data, but it is the API of a signed-in user's install.
 * `liveRoutes` reads the app's routes when asked, so routes added after this plugin are listed too;
 * `routes` describes them (every domain's `…_ROUTES`, listed by ../api-routes.ts).
 */
export function openApiApi(liveRoutes: () => readonly LiveRoute[], routes: readonly ApiRoute[], version: string) {
  let cached: { count: number; document: Record<string, unknown> } | undefined;
  const document = () => {
    const live = liveRoutes();
    if (cached?.count !== live.length) cached = { count: live.length, document: openApiDocument(routes, live, version) };
    return cached.document;
  };
  return new Elysia()
    .get("/api/openapi.json", () => jsonResponse(document()))
    .get("/api/reference", () => new Response(referencePage(document()), { headers: { "content-type": "text/html; charset=utf-8" } }));
}
