import { messageOf, workflowInterface, type Logger, type RunTrigger } from "@weft/types";
import type { RunsStorage } from "./runs-storage.ts";
import type { StartRunRequest } from "./run-service.ts";

/** The context an error workflow's run is given: it gets those of these it declares as inputs (`core:workflow-input`). */
export const ERROR_WORKFLOW_INPUTS = ["runId", "workflowId", "workflowName", "failedNodeId", "failedNodeTitle", "error", "inputs", "link"] as const;
export type ErrorWorkflowContext = Record<(typeof ERROR_WORKFLOW_INPUTS)[number], unknown>;

export interface ErrorWorkflowDeps {
  storage: Pick<RunsStorage, "runs" | "workflows">;
  start(request: StartRunRequest): Promise<{ runId: string }>;
  /** Whether the user may start runs now (an editor or an owner): the error run acts for the failed run's creator, never more. */
  mayRun(userId: string): Promise<boolean>;
  /** The editor's address as users open it (`WEFT_PUBLIC_URL`), for the failed run's link; without it the link is a path. */
  publicUrl?: string;
  log: Logger;
}

/** The editor address of a run: the failed run opened in its workflow, as a link from a chat or a tracker opens it. */
export function runLink(publicUrl: string | undefined, workflowId: string, runId: string): string {
  return `${(publicUrl ?? "").replace(/\/+$/, "")}/#/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}`;
}

/**
 * Starts a failed run's error workflow (its workflow's `errorWorkflowId`), as its own run recording
 * `trigger: { kind: "error", runId }`. Only runs that ended `failed` start one; a run that was itself started this way
 * starts none (no loop). Called by whichever process executed the failed run (the API, or a queue worker).
 */
export class ErrorWorkflowLauncher {
  constructor(private readonly deps: ErrorWorkflowDeps) {}

  /** Never throws: what cannot start is logged (the failed run's own record is already complete). */
  async launch(runId: string): Promise<string | undefined> {
    try {
      return await this.start(runId);
    } catch (error) {
      this.deps.log.warn("the error workflow of a failed run did not start", { runId, error: messageOf(error) });
      return undefined;
    }
  }

  private async start(runId: string): Promise<string | undefined> {
    const { storage, log } = this.deps;
    const run = await storage.runs.get(runId);
    if (!run || run.status !== "failed" || run.trigger?.kind === "error") return undefined;
    // The workflow as this run ran it: its setting then, not a later save's.
    const workflow = await storage.runs.getWorkflow(runId);
    const errorWorkflowId = workflow?.errorWorkflowId;
    if (!workflow || errorWorkflowId === undefined) return undefined;
    if (run.createdBy !== undefined && !(await this.deps.mayRun(run.createdBy))) {
      log.warn("the error workflow was not started: the failed run's creator may no longer run workflows", { runId, errorWorkflowId, userId: run.createdBy });
      return undefined;
    }
    const target = await storage.workflows.get(errorWorkflowId);
    if (!target) {
      log.warn("the error workflow was not started: it is no longer saved", { runId, errorWorkflowId });
      return undefined;
    }
    const failedNodeId = typeof run.error?.details?.nodeId === "string" ? run.error.details.nodeId : undefined;
    const failedNode = failedNodeId === undefined ? undefined : workflow.nodes.find((n) => n.id === failedNodeId);
    const context: ErrorWorkflowContext = {
      runId,
      workflowId: run.workflowId,
      workflowName: workflow.name,
      failedNodeId: failedNodeId ?? null,
      failedNodeTitle: failedNode ? (failedNode.label ?? failedNode.type) : null,
      error: { code: run.error?.code ?? "UNKNOWN", message: run.error?.message ?? "" },
      // As stored: redacted as every run's inputs are.
      inputs: run.inputs,
      link: runLink(this.deps.publicUrl, run.workflowId, runId),
    };
    // Only what it declares: the engine refuses inputs a workflow has no port for.
    const declared = new Set(workflowInterface(target.document).inputs.map((p) => p.name));
    const inputs = Object.fromEntries(Object.entries(context).filter(([name]) => declared.has(name)));
    const trigger: RunTrigger = { kind: "error", runId, at: Date.now() };
    const started = await this.deps.start({ workflowId: errorWorkflowId, inputs, trigger, stored: target, ...(run.createdBy !== undefined ? { createdBy: run.createdBy } : {}) });
    log.info("error workflow started", { runId, errorWorkflowId, errorRunId: started.runId });
    return started.runId;
  }
}
