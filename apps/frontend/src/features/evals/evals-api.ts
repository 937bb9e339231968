import { z } from "zod";
import { EvalRunSchema, EvalSuiteSchema, VersionPageSchema, type EvalCase, type EvalRunRequest } from "@weft/types";
import { ApiClient } from "../../shared/api/client.ts";

const enc = encodeURIComponent;
const SuiteAnswer = z.object({ suite: EvalSuiteSchema });
const RunAnswer = z.object({ run: EvalRunSchema });

/** Eval suites (docs/api.md "Evals"): a workflow's suites, writing them, running them, their runs. */
export class EvalsApi extends ApiClient {
  suites(workflowId: string) {
    return this.request("GET", `/api/evals/suites?workflowId=${enc(workflowId)}`, z.object({ suites: z.array(EvalSuiteSchema) }));
  }

  create(workflowId: string, name: string) {
    return this.request("POST", "/api/evals/suites", SuiteAnswer, { name, target: { kind: "workflow", id: workflowId }, cases: [] });
  }

  save(id: string, workflowId: string, name: string, cases: EvalCase[]) {
    return this.request("PUT", `/api/evals/suites/${enc(id)}`, SuiteAnswer, { name, target: { kind: "workflow", id: workflowId }, cases });
  }

  caseFromRun(suiteId: string, runId: string) {
    return this.request("POST", `/api/evals/suites/${enc(suiteId)}/cases/from-run`, SuiteAnswer.extend({ case: z.unknown() }), { runId });
  }

  start(suiteId: string, body: EvalRunRequest) {
    return this.request("POST", `/api/evals/suites/${enc(suiteId)}/runs`, RunAnswer, body);
  }

  run(id: string) {
    return this.request("GET", `/api/evals/runs/${enc(id)}`, RunAnswer);
  }

  latestRun(suiteId: string) {
    return this.request("GET", `/api/evals/suites/${enc(suiteId)}/runs?limit=1`, z.object({ runs: z.array(EvalRunSchema) }));
  }

  versions(workflowId: string) {
    return this.request("GET", `/api/workflows/${enc(workflowId)}/versions?limit=50`, VersionPageSchema);
  }
}
