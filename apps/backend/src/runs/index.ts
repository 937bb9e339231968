import { RunService, type RunServiceDeps } from "./run-service.ts";
import { runsApi } from "./runs-api.ts";

export { RunService } from "./run-service.ts";

export interface Runs {
  service: RunService;
  /** The Elysia plugin with the run routes. */
  api: ReturnType<typeof runsApi>;
}

/** Workflow runs: the service that checks, records, queues and runs them, and its routes. */
export function createRuns(deps: RunServiceDeps & { maxBodyBytes: number }): Runs {
  const service = new RunService(deps);
  return { service, api: runsApi({ runs: service, storage: deps.storage, maxBodyBytes: deps.maxBodyBytes }) };
}
