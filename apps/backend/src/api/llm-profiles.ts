import { Elysia } from "elysia";
import type { ApiDeps } from "./deps.ts";
import { jsonResponse } from "./errors.ts";
import { readBody } from "./body.ts";
import { CreateLlmProfileSchema, UpdateLlmProfileSchema } from "../llm/profile-schemas.ts";

export function llmProfilesApi(deps: ApiDeps) {
  const { llmProfiles, maxBodyBytes } = deps;
  return new Elysia()
    .get("/api/llm-profiles", async () => jsonResponse({ profiles: await llmProfiles.list() }))
    .post("/api/llm-profiles", async ({ request }) => {
      const body = await readBody(request, CreateLlmProfileSchema, maxBodyBytes);
      return jsonResponse({ profile: await llmProfiles.create(body) }, 201);
    })
    .get("/api/llm-profiles/:id", async ({ params }) => jsonResponse({ profile: await llmProfiles.get(params.id) }))
    .put("/api/llm-profiles/:id", async ({ params, request }) => {
      const body = await readBody(request, UpdateLlmProfileSchema, maxBodyBytes);
      return jsonResponse(await llmProfiles.update(params.id, body));
    })
    .delete("/api/llm-profiles/:id", async ({ params }) => {
      return jsonResponse({ ok: true, profile: await llmProfiles.delete(params.id) });
    })
    .post("/api/llm-profiles/:id/test", async ({ params }) => jsonResponse(await llmProfiles.test(params.id)));
}
