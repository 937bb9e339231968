import { z } from "zod";
import { SceneSuiteRunSchema, SceneSuiteSchema, type SceneCase } from "@weft/types";
import { ApiClient } from "../../shared/api/client.ts";

const enc = encodeURIComponent;
const SuiteAnswer = z.object({ suite: SceneSuiteSchema });
const RunAnswer = z.object({ run: SceneSuiteRunSchema });

/** Scene suites (docs/api.md "Scene suites"): a scene's suites, writing them, running them, their runs. */
export class SceneSuitesApi extends ApiClient {
  suites(sceneId: string) {
    return this.request("GET", `/api/evals/scene-suites?sceneId=${enc(sceneId)}`, z.object({ suites: z.array(SceneSuiteSchema) }));
  }

  create(sceneId: string, name: string, cases: SceneCase[]) {
    return this.request("POST", "/api/evals/scene-suites", SuiteAnswer, { name, sceneId, cases });
  }

  save(id: string, sceneId: string, name: string, cases: unknown) {
    return this.request("PUT", `/api/evals/scene-suites/${enc(id)}`, SuiteAnswer, { name, sceneId, cases });
  }

  start(suiteId: string) {
    return this.request("POST", `/api/evals/scene-suites/${enc(suiteId)}/runs`, RunAnswer, {});
  }

  run(id: string) {
    return this.request("GET", `/api/evals/scene-runs/${enc(id)}`, RunAnswer);
  }

  latestRun(suiteId: string) {
    return this.request("GET", `/api/evals/scene-suites/${enc(suiteId)}/runs?limit=1`, z.object({ runs: z.array(SceneSuiteRunSchema) }));
  }
}
