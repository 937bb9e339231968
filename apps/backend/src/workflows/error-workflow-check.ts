import type { Workflow } from "@weft/types";
import { ApiError } from "../api/errors.ts";

/**
 * Refuses a workflow whose `errorWorkflowId` names itself or no stored workflow. Saving needs the editor role, as
 * running does, so whoever may save the setting may run the workflow it names; its runs act for the failed run's
 * creator (runs/error-workflow.ts), never for the saver.
 */
export function refuseBadErrorWorkflow(workflow: Workflow, isStored: (id: string) => boolean, where: string): void {
  const target = workflow.errorWorkflowId;
  if (target === undefined) return;
  const path = ["workflow", "errorWorkflowId"];
  if (target === workflow.id) {
    throw new ApiError("VALIDATION_FAILED", `${where}.errorWorkflowId names the workflow itself ("${target}"); choose another workflow to run when this one fails, or remove the setting.`, {
      issues: [{ path, message: "a workflow cannot be its own error workflow", code: "custom" }],
    });
  }
  if (!isStored(target)) {
    throw new ApiError("VALIDATION_FAILED", `${where}.errorWorkflowId names workflow "${target}", which is not saved; save it first (GET /api/workflows lists them) or remove the setting.`, {
      issues: [{ path, message: `no workflow "${target}"`, code: "custom" }],
    });
  }
}
