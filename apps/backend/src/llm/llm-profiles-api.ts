import { Elysia } from "elysia";
import { z } from "zod";
import { answer } from "../api/errors.ts";
import { readBody } from "../api/body.ts";
import { route, type ApiRoute } from "../api/openapi-routes.ts";
import { ConnectionTestViewSchema, LlmProfileUpdateViewSchema, type LlmProfileService } from "./profile-service.ts";
import { CreateLlmProfileSchema, LlmProfileViewSchema, UpdateLlmProfileSchema } from "./profile-schemas.ts";

const ProfilesAnswer = z.object({ profiles: z.array(LlmProfileViewSchema) });
const ProfileAnswer = z.object({ profile: LlmProfileViewSchema });
const DeletedAnswer = z.object({ ok: z.literal(true), profile: LlmProfileViewSchema.describe("the profile as it was") });

/** LLM profiles: listed and changed here, their keys never returned; `test` sends the profile a tiny request. */
export function llmProfilesApi(llmProfiles: LlmProfileService, maxBodyBytes: number) {
  return new Elysia()
    .get("/api/llm-profiles", async () => answer(ProfilesAnswer, { profiles: await llmProfiles.list() }))
    .post("/api/llm-profiles", async ({ request }) => {
      const body = await readBody(request, CreateLlmProfileSchema, maxBodyBytes);
      return answer(ProfileAnswer, { profile: await llmProfiles.create(body) }, 201);
    })
    .get("/api/llm-profiles/:id", async ({ params }) => answer(ProfileAnswer, { profile: await llmProfiles.get(params.id) }))
    .put("/api/llm-profiles/:id", async ({ params, request }) => {
      const body = await readBody(request, UpdateLlmProfileSchema, maxBodyBytes);
      return answer(LlmProfileUpdateViewSchema, await llmProfiles.update(params.id, body));
    })
    .delete("/api/llm-profiles/:id", async ({ params }) => {
      return answer(DeletedAnswer, { ok: true, profile: await llmProfiles.delete(params.id) });
    })
    .post("/api/llm-profiles/:id/test", async ({ params }) => answer(ConnectionTestViewSchema, await llmProfiles.test(params.id)));
}

/** The LLM profile routes, as the OpenAPI document describes them. */
export const LLM_PROFILES_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/llm-profiles", "llm-profiles", "List LLM profiles (keys never returned)", { response: ProfilesAnswer }),
  route("POST", "/api/llm-profiles", "llm-profiles", "Create an LLM profile", { body: CreateLlmProfileSchema, status: 201, response: ProfileAnswer }),
  route("GET", "/api/llm-profiles/:id", "llm-profiles", "Get an LLM profile", { response: ProfileAnswer }),
  route("PUT", "/api/llm-profiles/:id", "llm-profiles", "Update an LLM profile", { body: UpdateLlmProfileSchema, response: LlmProfileUpdateViewSchema }),
  route("DELETE", "/api/llm-profiles/:id", "llm-profiles", "Delete an LLM profile", { response: DeletedAnswer }),
  route("POST", "/api/llm-profiles/:id/test", "llm-profiles", "Test the profile's connection with a tiny request", { response: ConnectionTestViewSchema }),
];
