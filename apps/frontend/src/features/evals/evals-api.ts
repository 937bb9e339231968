import { z } from "zod";
import { EvalRunSchema, EvalSuiteSchema, VersionPageSchema, type EvalRunRequest, type EvalSuiteCase, type EvalTarget } from "@weft/types";
import { ApiClient } from "../../shared/api/client.ts";

const enc = encodeURIComponent;
const SuiteAnswer = z.object({ suite: EvalSuiteSchema });
const RunAnswer = z.object({ run: EvalRunSchema });

/** Eval suites (docs/api.md "Evals"): a workflow's or an agent's suites, writing them, running them, their runs. */
export class EvalsApi extends ApiClient {
  suites(target: EvalTarget) {
    const filter = target.kind === "agent" ? `agentId=${enc(target.id)}` : `workflowId=${enc(target.id)}`;
    return this.request("GET", `/api/evals/suites?${filter}`, z.object({ suites: z.array(EvalSuiteSchema) }));
  }

  create(target: EvalTarget, name: string) {
    return this.request("POST", "/api/evals/suites", SuiteAnswer, { name, target, cases: [] });
  }

  save(id: string, target: EvalTarget, name: string, cases: EvalSuiteCase[]) {
    return this.request("PUT", `/api/evals/suites/${enc(id)}`, SuiteAnswer, { name, target, cases });
  }

  caseFromConversation(suiteId: string, conversationId: string) {
    return this.request("POST", `/api/evals/suites/${enc(suiteId)}/cases/from-conversation`, SuiteAnswer.extend({ case: z.unknown() }), { conversationId });
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

  versions(target: EvalTarget) {
    return this.request("GET", `/api/${target.kind === "agent" ? "agents" : "workflows"}/${enc(target.id)}/versions?limit=50`, VersionPageSchema);
  }
}
