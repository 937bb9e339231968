import type { ExecutionEngine } from "@weft/agent-runtime";
import { RunService, type RunServiceDeps } from "./run-service.ts";
import { RunExecutor } from "./run-executor.ts";
import { LocalRunDispatcher, type RunDispatcher } from "./run-dispatcher.ts";
import type { RunQueue } from "./run-queue.ts";
import { runsApi } from "./runs-api.ts";
import type { RunWaits } from "./run-waits.ts";
import { ErrorWorkflowLauncher, type ErrorWorkflowDeps } from "./error-workflow.ts";

export { RunService } from "./run-service.ts";
export { RunExecutor } from "./run-executor.ts";
export type { RunDispatcher } from "./run-dispatcher.ts";
export type { RunWaits } from "./run-waits.ts";
export { ErrorWorkflowLauncher } from "./error-workflow.ts";

/** A run that fails on `executor` starts its workflow's error workflow through `service` (in the API, or on a worker). */
export function startErrorWorkflows(executor: RunExecutor, service: RunService, deps: Omit<ErrorWorkflowDeps, "start">): void {
  const launcher = new ErrorWorkflowLauncher({ ...deps, start: (request) => service.start(request) });
  executor.onRunFailed((runId) => launcher.launch(runId));
}

export interface Runs {
  service: RunService;
  /** Executes runs in this process: the embedded mode's runs, and the closing of runs that never started. */
  executor: RunExecutor;
  /** The Elysia plugin with the run routes. */
  api: ReturnType<typeof runsApi>;
}

export type RunsDeps = Omit<RunServiceDeps, "dispatcher" | "executor"> & {
  /** The engine a run of this workflow uses (its output cache is the workflow's). */
  engineFor(workflowId: string): ExecutionEngine;
  /** The embedded mode's line, used unless `dispatcher` is given. */
  queue: RunQueue;
  /** Another dispatcher (the queue mode's); it gets this process's executor to close runs that never started. */
  dispatcher?: (executor: RunExecutor) => RunDispatcher;
  maxBodyBytes: number;
  /** Where paused runs' requests and decisions are kept (`../approvals/`). */
  waits?: RunWaits;
  /** For a failed run's error workflow: whether its creator may still run workflows, and the editor's public address. */
  errorWorkflows: Pick<ErrorWorkflowDeps, "mayRun" | "publicUrl">;
};

/** Workflow runs: the service that checks, records and dispatches them, and its routes. */
export function createRuns(deps: RunsDeps): Runs {
  const executor = new RunExecutor({ journal: deps.journal, engineFor: deps.engineFor, observations: deps.storage.observations, ...(deps.waits ? { waits: deps.waits } : {}), log: deps.log });
  const dispatcher = deps.dispatcher ? deps.dispatcher(executor) : new LocalRunDispatcher(deps.queue, executor);
  const service = new RunService({ storage: deps.storage, journal: deps.journal, validator: deps.validator, log: deps.log, dispatcher, executor, ...(deps.waits ? { waits: deps.waits } : {}) });
  startErrorWorkflows(executor, service, { storage: deps.storage, log: deps.log, ...deps.errorWorkflows });
  return { service, executor, api: runsApi({ runs: service, storage: deps.storage, maxBodyBytes: deps.maxBodyBytes }) };
}
