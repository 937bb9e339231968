import type { Logger } from "@weft/types";
import type { TableEngine } from "../storage/table.ts";
import { SceneSuiteRepository } from "./scene-suite-repository.ts";
import { SceneSuiteService, type SceneRunPort } from "./scene-suite-service.ts";
import { sceneSuitesApi } from "./scene-suites-api.ts";

export { SCENE_SUITE_MIGRATIONS } from "./scene-suite-migrations.ts";
export type { SceneRunPort } from "./scene-suite-service.ts";

/** Scene suites: the service (each variation a scene run through `port`, given by server.ts from the scenes domain) and its routes. */
export function createSceneSuites(deps: { engine: TableEngine; port: SceneRunPort; maxBodyBytes: number; log: Logger }) {
  const service = new SceneSuiteService({ repo: new SceneSuiteRepository(deps.engine), port: deps.port, log: deps.log });
  return { service, api: sceneSuitesApi(service, deps.maxBodyBytes) };
}
