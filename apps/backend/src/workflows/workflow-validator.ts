import type { ValidationIssue, Workflow } from "@weft/types";

/** Checks a workflow document as the engine would run it (the engine is one; the API, runs and the Builder ask it). */
export interface WorkflowValidator {
  validate(workflow: unknown): { ok: true; workflow: Workflow } | { ok: false; issues: ValidationIssue[] };
}
