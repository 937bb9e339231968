import { Elysia } from "elysia";
import { CredentialInputSchema } from "@weft/types";
import { readBody } from "../api/body.ts";
import { jsonResponse } from "../api/errors.ts";
import { route, type ApiRoute } from "../api/openapi-routes.ts";
import type { CredentialService } from "./credential-service.ts";

/** Named credentials for http.request: listed and changed here, their secrets never returned. */
export function credentialsApi(credentials: CredentialService, maxBodyBytes: number) {
  return new Elysia()
    .get("/api/credentials", async () => jsonResponse({ credentials: await credentials.list() }))
    .post("/api/credentials", async ({ request }) => {
      const body = await readBody(request, CredentialInputSchema, maxBodyBytes);
      return jsonResponse({ credential: await credentials.create(body) }, 201);
    })
    .put("/api/credentials/:name", async ({ params, request }) => {
      const body = await readBody(request, CredentialInputSchema, maxBodyBytes);
      return jsonResponse({ credential: await credentials.update(params.name, body) });
    })
    .delete("/api/credentials/:name", async ({ params }) => {
      await credentials.delete(params.name);
      return jsonResponse({ ok: true });
    });
}

/** The credential routes, as the OpenAPI document describes them. */
export const CREDENTIALS_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/credentials", "credentials", "List credentials by name (secrets never returned)"),
  route("POST", "/api/credentials", "credentials", "Store a credential", { body: CredentialInputSchema, status: 201 }),
  route("PUT", "/api/credentials/:name", "credentials", "Replace a credential", { body: CredentialInputSchema }),
  route("DELETE", "/api/credentials/:name", "credentials", "Delete a credential"),
];
