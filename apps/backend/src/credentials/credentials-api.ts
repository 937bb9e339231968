import { Elysia } from "elysia";
import { z } from "zod";
import { CredentialInputSchema, CredentialSummarySchema } from "@weft/types";
import { readBody } from "../api/body.ts";
import { answer } from "../api/errors.ts";
import { OkAnswer, route, type ApiRoute } from "../api/openapi-routes.ts";
import type { CredentialService } from "./credential-service.ts";

const CredentialsAnswer = z.object({ credentials: z.array(CredentialSummarySchema) });
const CredentialAnswer = z.object({ credential: CredentialSummarySchema });

/** Named credentials for http.request: listed and changed here, their secrets never returned. */
export function credentialsApi(credentials: CredentialService, maxBodyBytes: number) {
  return new Elysia()
    .get("/api/credentials", async () => answer(CredentialsAnswer, { credentials: await credentials.list() }))
    .post("/api/credentials", async ({ request }) => {
      const body = await readBody(request, CredentialInputSchema, maxBodyBytes);
      return answer(CredentialAnswer, { credential: await credentials.create(body) }, 201);
    })
    .put("/api/credentials/:name", async ({ params, request }) => {
      const body = await readBody(request, CredentialInputSchema, maxBodyBytes);
      return answer(CredentialAnswer, { credential: await credentials.update(params.name, body) });
    })
    .delete("/api/credentials/:name", async ({ params }) => {
      await credentials.delete(params.name);
      return answer(OkAnswer, { ok: true });
    });
}

/** The credential routes, as the OpenAPI document describes them. */
export const CREDENTIALS_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/credentials", "credentials", "List credentials by name (secrets never returned)", { response: CredentialsAnswer }),
  route("POST", "/api/credentials", "credentials", "Store a credential", { body: CredentialInputSchema, status: 201, response: CredentialAnswer }),
  route("PUT", "/api/credentials/:name", "credentials", "Replace a credential", { body: CredentialInputSchema, response: CredentialAnswer }),
  route("DELETE", "/api/credentials/:name", "credentials", "Delete a credential", { response: OkAnswer }),
];
