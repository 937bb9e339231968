import { Elysia } from "elysia";
import { CredentialInputSchema } from "@weft/types";
import type { CredentialService } from "../credentials/credential-service.ts";
import { readBody } from "./body.ts";
import { jsonResponse } from "./errors.ts";

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
