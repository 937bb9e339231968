import { NodeFailure, formatIssue, type ValidationIssue, type Workflow, type WorkflowSource } from "@weft/types";
import type { CompiledGraph } from "./compiled-graph.ts";
import { GraphRun } from "./graph-run.ts";
import { bindInterfaceInputs } from "./interface-inputs.ts";
import type { RunScope, SubworkflowRequest, SubworkflowRunner } from "./run-scope.ts";

export type CheckedWorkflow = { ok: true; workflow: Workflow; graph: CompiledGraph } | { ok: false; issues: ValidationIssue[] };

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Runs saved workflows as subgraphs of the current run (`core:skill`): same run id, event stream,
 * cache and services; node ids namespaced under the calling node; recursion refused by the call stack.
 */
export function createSubworkflowRunner(workflows: WorkflowSource | undefined, check: (doc: unknown) => CheckedWorkflow): SubworkflowRunner {
  return async (scope: RunScope, request: SubworkflowRequest) => {
    const { workflowId } = request;
    const seenAt = request.stack.indexOf(workflowId);
    if (seenAt >= 0) {
      const chain = [...request.stack.slice(seenAt), workflowId];
      throw new NodeFailure("SKILL_RECURSION", `workflow "${workflowId}" would call itself: ${chain.map((id) => `"${id}"`).join(" → ")}`, { chain });
    }
    if (!workflows) throw new NodeFailure("SKILL_NOT_FOUND", `cannot load workflow "${workflowId}": the engine was given no workflow source`, { workflowId });
    let loaded: Workflow | undefined;
    try {
      loaded = await workflows.getWorkflow(workflowId);
    } catch (err) {
      throw new NodeFailure("SKILL_LOAD_FAILED", `could not load workflow "${workflowId}": ${errorMessage(err)}`, { workflowId });
    }
    if (!loaded) throw new NodeFailure("SKILL_NOT_FOUND", `no saved workflow has the id "${workflowId}"`, { workflowId });
    const checked = check(loaded);
    if (!checked.ok) {
      const first = checked.issues[0] ? formatIssue(checked.issues[0]) : "";
      throw new NodeFailure("INVALID_WORKFLOW", `workflow "${workflowId}" is not valid (${checked.issues.length} problem(s)); ${first}`, {
        workflowId,
        issues: checked.issues,
      });
    }
    const bound = bindInterfaceInputs(checked.graph, request.inputs);
    if (!bound.ok) throw new NodeFailure(bound.error.code, bound.error.message, bound.error.details);
    const startedAt = Date.now();
    const t0 = performance.now();
    const outcome = await new GraphRun(scope, checked.graph, {
      prefix: request.prefix,
      stack: [...request.stack, workflowId],
      signal: request.signal,
      overrides: bound.overrides,
      forward: request.record,
    }).start();
    return {
      runId: scope.runId,
      workflowId,
      status: outcome.status,
      outputs: outcome.outputs,
      observations: outcome.observations,
      ...(outcome.error ? { error: outcome.error } : {}),
      startedAt,
      durationMs: performance.now() - t0,
    };
  };
}
