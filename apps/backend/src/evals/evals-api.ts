import { Elysia } from "elysia";
import { z } from "zod";
import { AgentEvalCaseSchema, EvalCaseSchema, EvalRunRequestSchema, EvalRunSchema, EvalSuiteInputSchema, EvalSuiteSchema } from "@weft/types";
import { jsonResponse, validationError } from "../api/errors.ts";
import { parseWith, readBody, readJsonBody } from "../api/body.ts";
import { OkAnswer, route, type ApiRoute } from "../api/openapi-routes.ts";
import { actorOf } from "../auth/principal.ts";
import type { EvalService } from "./eval-service.ts";

const SuiteListQuery = z.object({ workflowId: z.string().min(1).optional(), agentId: z.string().min(1).optional() }).strict();
const RunListQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).default(20) }).strict();
const FromRunBody = z.object({ runId: z.string().min(1), name: z.string().min(1).max(200).optional() }).strict();
const FromConversationBody = z.object({ conversationId: z.string().min(1), name: z.string().min(1).max(200).optional() }).strict();

/** The target a suite list is filtered by: a workflow's or an agent's suites, or all. */
function listTarget(q: z.infer<typeof SuiteListQuery>): { kind: string; id: string } | undefined {
  if (q.workflowId !== undefined) return { kind: "workflow", id: q.workflowId };
  if (q.agentId !== undefined) return { kind: "agent", id: q.agentId };
  return undefined;
}

/** Each target kind's cases, to name the field at fault in a case (the suite schema's union of both names only the case). */
const CASES_OF = {
  workflow: z.object({ cases: z.array(EvalCaseSchema) }).loose(),
  agent: z.object({ cases: z.array(AgentEvalCaseSchema) }).loose(),
};
const KindOf = z.object({ target: z.object({ kind: z.enum(["workflow", "agent"]) }).loose() }).loose();

/** A suite's body: on a wrong case, the error names the field in it as the suite's target kind reads its cases. */
async function readSuite(request: Request, maxBodyBytes: number): Promise<z.output<typeof EvalSuiteInputSchema>> {
  const value = await readJsonBody(request, maxBodyBytes);
  const parsed = EvalSuiteInputSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const kind = KindOf.safeParse(value);
  const unreadCase = parsed.error.issues.some((i) => i.code === "invalid_union" && i.path[0] === "cases");
  const cases = kind.success && unreadCase ? CASES_OF[kind.data.target.kind].safeParse(value) : undefined;
  throw validationError(cases?.error ?? parsed.error, "body");
}

/** Eval suites' routes: viewers read suites and results; editors write suites and run them. */
export function evalsApi(evals: EvalService, maxBodyBytes: number) {
  return new Elysia()
    .get("/api/evals/suites", async ({ query }) => {
      const q = parseWith(SuiteListQuery, query, "query");
      return jsonResponse({ suites: await evals.listSuites(listTarget(q)) });
    })
    .post("/api/evals/suites", async ({ request }) => {
      const body = await readSuite(request, maxBodyBytes);
      return jsonResponse({ suite: await evals.createSuite(body, actorOf(request)) }, 201);
    })
    .get("/api/evals/suites/:id", async ({ params }) => jsonResponse({ suite: await evals.getSuite(params.id) }))
    .put("/api/evals/suites/:id", async ({ params, request }) => {
      const body = await readSuite(request, maxBodyBytes);
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
    .post("/api/evals/suites/:id/cases/from-conversation", async ({ params, request }) => {
      const body = await readBody(request, FromConversationBody, maxBodyBytes);
      return jsonResponse(await evals.caseFromConversation(params.id, body.conversationId, body.name), 201);
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
  route("GET", "/api/evals/suites", "evals", "Eval suites, all or those of one workflow (?workflowId=) or agent (?agentId=)", {
    query: SuiteListQuery,
    response: z.object({ suites: z.array(EvalSuiteSchema) }),
  }),
  route("POST", "/api/evals/suites", "evals", "Create an eval suite: a skill's cases (inputs) with assertions", { body: EvalSuiteInputSchema, response: SuiteAnswer, status: 201 }),
  route("GET", "/api/evals/suites/:id", "evals", "One eval suite with its cases", { response: SuiteAnswer }),
  route("PUT", "/api/evals/suites/:id", "evals", "Replace an eval suite's name, target and cases", { body: EvalSuiteInputSchema, response: SuiteAnswer }),
  route("DELETE", "/api/evals/suites/:id", "evals", "Delete an eval suite and its runs", { response: OkAnswer }),
  route("POST", "/api/evals/suites/:id/cases/from-run", "evals", "Save as test case: a completed run's inputs, its outputs as the expected value", {
    body: FromRunBody,
    response: z.object({ suite: EvalSuiteSchema, case: EvalCaseSchema }),
    status: 201,
  }),
  route("POST", "/api/evals/suites/:id/cases/from-conversation", "evals", "Save as test case: an agent conversation's user messages, its final answer as the expected value", {
    body: FromConversationBody,
    response: z.object({ suite: EvalSuiteSchema, case: AgentEvalCaseSchema }),
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
