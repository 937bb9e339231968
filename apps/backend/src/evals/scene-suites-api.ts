import { Elysia } from "elysia";
import { z } from "zod";
import { SceneSuiteInputSchema, SceneSuiteRunSchema, SceneSuiteSchema } from "@weft/types";
import { jsonResponse } from "../api/errors.ts";
import { parseWith, readBody } from "../api/body.ts";
import { OkAnswer, route, type ApiRoute } from "../api/openapi-routes.ts";
import { actorOf, authorOf } from "../auth/principal.ts";
import type { SceneSuiteService } from "./scene-suite-service.ts";

const SuiteListQuery = z.object({ sceneId: z.string().min(1).optional() }).strict();
const RunListQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).default(20) }).strict();

/** Scene suites' routes: viewers read suites and results; editors write suites and run them (the scene runs act for them). */
export function sceneSuitesApi(suites: SceneSuiteService, maxBodyBytes: number) {
  return new Elysia()
    .get("/api/evals/scene-suites", async ({ query }) => jsonResponse({ suites: await suites.listSuites(parseWith(SuiteListQuery, query, "query").sceneId) }))
    .post("/api/evals/scene-suites", async ({ request }) => {
      const body = await readBody(request, SceneSuiteInputSchema, maxBodyBytes);
      return jsonResponse({ suite: await suites.createSuite(body, actorOf(request)) }, 201);
    })
    .get("/api/evals/scene-suites/:id", async ({ params }) => jsonResponse({ suite: await suites.getSuite(params.id) }))
    .put("/api/evals/scene-suites/:id", async ({ params, request }) => {
      const body = await readBody(request, SceneSuiteInputSchema, maxBodyBytes);
      return jsonResponse({ suite: await suites.updateSuite(params.id, body) });
    })
    .delete("/api/evals/scene-suites/:id", async ({ params }) => {
      await suites.deleteSuite(params.id);
      return jsonResponse({ ok: true });
    })
    .post("/api/evals/scene-suites/:id/runs", async ({ params, request }) => jsonResponse({ run: await suites.startRun(params.id, authorOf(request)) }, 202))
    .get("/api/evals/scene-suites/:id/runs", async ({ params, query }) => jsonResponse({ runs: await suites.listRuns(params.id, parseWith(RunListQuery, query, "query").limit) }))
    .get("/api/evals/scene-runs/:id", async ({ params }) => jsonResponse({ run: await suites.getRun(params.id) }));
}

const SuiteAnswer = z.object({ suite: SceneSuiteSchema });
const RunAnswer = z.object({ run: SceneSuiteRunSchema });

export const SCENE_SUITES_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/evals/scene-suites", "evals", "Scene suites, all or those of one scene (?sceneId=)", { query: SuiteListQuery, response: z.object({ suites: z.array(SceneSuiteSchema) }) }),
  route("POST", "/api/evals/scene-suites", "evals", "Create a scene suite: trigger scripts over seeds or world variations, with invariants checked at every step", {
    body: SceneSuiteInputSchema,
    response: SuiteAnswer,
    status: 201,
  }),
  route("GET", "/api/evals/scene-suites/:id", "evals", "One scene suite with its cases", { response: SuiteAnswer }),
  route("PUT", "/api/evals/scene-suites/:id", "evals", "Replace a scene suite's name, scene and cases", { body: SceneSuiteInputSchema, response: SuiteAnswer }),
  route("DELETE", "/api/evals/scene-suites/:id", "evals", "Delete a scene suite, its runs and the scene copies they made", { response: OkAnswer }),
  route("POST", "/api/evals/scene-suites/:id/runs", "evals", "Run a scene suite: each variation an ordinary scene run of a stored copy of the scene", { response: RunAnswer, status: 202 }),
  route("GET", "/api/evals/scene-suites/:id/runs", "evals", "The scene suite's runs, newest first", { query: RunListQuery, response: z.object({ runs: z.array(SceneSuiteRunSchema) }) }),
  route("GET", "/api/evals/scene-runs/:id", "evals", "One scene suite run: per variation pass or fail, each broken invariant's first step, value and timeline link", { response: RunAnswer }),
];
