import { workflowsApi, type WorkflowsApiDeps } from "./workflows-api.ts";

export type { WorkflowValidator } from "./workflow-validator.ts";
export { withSkillCheck } from "./skill-references.ts";
export { refuseBuiltInWrites } from "./built-in-guard.ts";

export interface Workflows {
  /** The Elysia plugin with the workflow routes: CRUD with revisions, callers, duplicate, export, import, validate. */
  api: ReturnType<typeof workflowsApi>;
}

/** Saved workflows: their routes (the storage is the service; checks are in workflow-validator.ts and skill-references.ts). */
export function createWorkflows(deps: WorkflowsApiDeps): Workflows {
  return { api: workflowsApi(deps) };
}
