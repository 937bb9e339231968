import { Elysia } from "elysia";
import { jsonResponse } from "../api/errors.ts";
import { readBody } from "../api/body.ts";
import { route, type ApiRoute } from "../api/openapi-routes.ts";
import type { LlmProfileService } from "./profile-service.ts";
import { CreateLlmProfileSchema, UpdateLlmProfileSchema } from "./profile-schemas.ts";

/** LLM profiles: listed and changed here, their keys never returned; `test` sends the profile a tiny request. */
export function llmProfilesApi(llmProfiles: LlmProfileService, maxBodyBytes: number) {
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

/** The LLM profile routes, as the OpenAPI document describes them. */
export const LLM_PROFILES_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/llm-profiles", "llm-profiles", "List LLM profiles (keys never returned)"),
  route("POST", "/api/llm-profiles", "llm-profiles", "Create an LLM profile", { body: CreateLlmProfileSchema, status: 201 }),
  route("GET", "/api/llm-profiles/:id", "llm-profiles", "Get an LLM profile"),
  route("PUT", "/api/llm-profiles/:id", "llm-profiles", "Update an LLM profile", { body: UpdateLlmProfileSchema }),
  route("DELETE", "/api/llm-profiles/:id", "llm-profiles", "Delete an LLM profile"),
  route("POST", "/api/llm-profiles/:id/test", "llm-profiles", "Test the profile's connection with a tiny request"),
];
