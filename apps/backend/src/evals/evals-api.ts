import { Elysia } from "elysia";
import { z } from "zod";
import { EvalCaseSchema, EvalRunRequestSchema, EvalRunSchema, EvalSuiteInputSchema, EvalSuiteSchema } from "@weft/types";
import { jsonResponse } from "../api/errors.ts";
import { parseWith, readBody } from "../api/body.ts";
import { OkAnswer, route, type ApiRoute } from "../api/openapi-routes.ts";
import { actorOf } from "../auth/principal.ts";
import type { EvalService } from "./eval-service.ts";

const SuiteListQuery = z.object({ workflowId: z.string().min(1).optional() }).strict();
const RunListQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).default(20) }).strict();
const FromRunBody = z.object({ runId: z.string().min(1), name: z.string().min(1).max(200).optional() }).strict();

/** Eval suites' routes: viewers read suites and results; editors write suites and run them. */
export function evalsApi(evals: EvalService, maxBodyBytes: number) {
  return new Elysia()
    .get("/api/evals/suites", async ({ query }) => {
      const q = parseWith(SuiteListQuery, query, "query");
      return jsonResponse({ suites: await evals.listSuites(q.workflowId !== undefined ? { kind: "workflow", id: q.workflowId } : undefined) });
    })
    .post("/api/evals/suites", async ({ request }) => {
      const body = await readBody(request, EvalSuiteInputSchema, maxBodyBytes);
      return jsonResponse({ suite: await evals.createSuite(body, actorOf(request)) }, 201);
    })
    .get("/api/evals/suites/:id", async ({ params }) => jsonResponse({ suite: await evals.getSuite(params.id) }))
    .put("/api/evals/suites/:id", async ({ params, request }) => {
      const body = await readBody(request, EvalSuiteInputSchema, maxBodyBytes);
      return jsonResponse({ suite: await evals.updateSuite(params.id, body) });
    })
    .delete("/api/evals/suites/:id", async ({ params }) => {
      await evals.deleteSuite(params.id);
      return jsonResponse({ ok: true });
    })
    .post("/api/evals/suites/:id/cases/from-run", async ({ params, request }) => {
      const body = await readBody(request, FromRunBody, maxBodyBytes);
      return jsonResponse(await evals.caseFromRun(params.id, body.runId, body.name), 201);
    })
    .post("/api/evals/suites/:id/runs", async ({ params, request }) => {
      const body = await readBody(request, EvalRunRequestSchema, maxBodyBytes, { allowEmpty: true });
      return jsonResponse({ run: await evals.startRun(params.id, body, actorOf(request)) }, 202);
    })
    .get("/api/evals/suites/:id/runs", async ({ params, query }) => {
      const q = parseWith(RunListQuery, query, "query");
      return jsonResponse({ runs: await evals.listRuns(params.id, q.limit) });
    })
    .get("/api/evals/runs/:id", async ({ params }) => jsonResponse({ run: await evals.getRun(params.id) }));
}

const SuiteAnswer = z.object({ suite: EvalSuiteSchema });
const RunAnswer = z.object({ run: EvalRunSchema });

export const EVALS_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/evals/suites", "evals", "Eval suites, all or those of one workflow (?workflowId=)", { query: SuiteListQuery, response: z.object({ suites: z.array(EvalSuiteSchema) }) }),
  route("POST", "/api/evals/suites", "evals", "Create an eval suite: a skill's cases (inputs) with assertions", { body: EvalSuiteInputSchema, response: SuiteAnswer, status: 201 }),
  route("GET", "/api/evals/suites/:id", "evals", "One eval suite with its cases", { response: SuiteAnswer }),
  route("PUT", "/api/evals/suites/:id", "evals", "Replace an eval suite's name, target and cases", { body: EvalSuiteInputSchema, response: SuiteAnswer }),
  route("DELETE", "/api/evals/suites/:id", "evals", "Delete an eval suite and its runs", { response: OkAnswer }),
  route("POST", "/api/evals/suites/:id/cases/from-run", "evals", "Save as test case: a completed run's inputs, its outputs as the expected value", {
    body: FromRunBody,
    response: z.object({ suite: EvalSuiteSchema, case: EvalCaseSchema }),
    status: 201,
  }),
  route(
    "POST",
    "/api/evals/suites/:id/runs",
    "evals",
    "Run the suite against a version or LLM profile (against), optionally side by side with another (compare); progress on /ws or GET /api/streams/:evalRunId/events",
    {
      body: EvalRunRequestSchema,
      bodyOptional: true,
      response: RunAnswer,
      status: 202,
    },
  ),
  route("GET", "/api/evals/suites/:id/runs", "evals", "The suite's eval runs, newest first", { query: RunListQuery, response: z.object({ runs: z.array(EvalRunSchema) }) }),
  route("GET", "/api/evals/runs/:id", "evals", "One eval run: pass rate per side, each case's result per assertion (expected and actual), duration, tokens, cost, run id", { response: RunAnswer }),
];
