import { context } from "@opentelemetry/api";
import { engineFailure, formatIssue, messageOf, NodeFailure, type NodeValues, type ValidationIssue, type Workflow, type WorkflowSource } from "@weft/types";
import type { CompiledGraph } from "./compiled-graph.ts";
import { GraphRun } from "./graph-run.ts";
import { bindInterfaceInputs } from "./interface-inputs.ts";
import { endGraphSpan, startGraphSpan } from "./run-span.ts";
import type { RunScope, SubworkflowRequest, SubworkflowRunner } from "./run-scope.ts";

export type CheckedWorkflow = { ok: true; workflow: Workflow; graph: CompiledGraph } | { ok: false; issues: ValidationIssue[] };

/**
 * Workflows loaded and checked in a run, by id: a skill called again in the same run (core:map
 * calls it once per item) is neither loaded nor checked again, and the run sees one version of it.
 */
const checkedInRun = new WeakMap<RunScope, Map<string, Promise<CheckedWorkflow & { workflowId: string }>>>();

async function loadAndCheck(workflows: WorkflowSource | undefined, check: (doc: unknown) => CheckedWorkflow, workflowId: string): Promise<CheckedWorkflow & { workflowId: string }> {
  if (!workflows) throw engineFailure("SKILL_NOT_FOUND", `cannot load workflow "${workflowId}": the engine was given no workflow source`, { workflowId });
  let loaded: Workflow | undefined;
  try {
    loaded = await workflows.getWorkflow(workflowId);
  } catch (err) {
    throw engineFailure("SKILL_LOAD_FAILED", `could not load workflow "${workflowId}": ${messageOf(err)}`, { workflowId });
  }
  if (!loaded) throw engineFailure("SKILL_NOT_FOUND", `no saved workflow has the id "${workflowId}"`, { workflowId });
  return { ...check(loaded), workflowId };
}

function checkedSkill(scope: RunScope, workflows: WorkflowSource | undefined, check: (doc: unknown) => CheckedWorkflow, workflowId: string) {
  let byId = checkedInRun.get(scope);
  if (!byId) checkedInRun.set(scope, (byId = new Map()));
  let checked = byId.get(workflowId);
  if (!checked) {
    checked = loadAndCheck(workflows, check, workflowId);
    byId.set(workflowId, checked);
    // A failed load is not kept: the next call tries again.
    checked.catch(() => byId.delete(workflowId));
  }
  return checked;
}

/**
 * Runs saved workflows as subgraphs of the current run (`core:skill`, `core:map`): same run id,
 * event stream, cache and services; node ids namespaced under the calling node; recursion refused
 * by the call stack. A request `asNodeType` runs one node type as a one-node workflow.
 */
export function createSubworkflowRunner(
  workflows: WorkflowSource | undefined,
  check: (doc: unknown) => CheckedWorkflow,
  singleNode: (nodeType: string, params: NodeValues) => Workflow,
): SubworkflowRunner {
  return async (scope: RunScope, request: SubworkflowRequest) => {
    const { workflowId } = request;
    const stackId = request.asNodeType ? `node:${workflowId}` : workflowId;
    const seenAt = request.stack.indexOf(stackId);
    if (seenAt >= 0) {
      const chain = [...request.stack.slice(seenAt), stackId];
      throw engineFailure("SKILL_RECURSION", `workflow "${workflowId}" would call itself: ${chain.map((id) => `"${id}"`).join(" → ")}`, { chain });
    }
    const checked = request.asNodeType ? check(singleNode(workflowId, request.inputs)) : await checkedSkill(scope, workflows, check, workflowId);
    if (!checked.ok) {
      const first = checked.issues[0] ? formatIssue(checked.issues[0]) : "";
      throw engineFailure("INVALID_WORKFLOW", `${request.asNodeType ? "node type" : "workflow"} "${workflowId}" is not valid here (${checked.issues.length} problem(s)); ${first}`, {
        workflowId,
        issues: checked.issues,
      });
    }
    const bound = bindInterfaceInputs(checked.graph, request.asNodeType ? {} : request.inputs);
    if (!bound.ok) throw new NodeFailure(bound.error.code, bound.error.message, bound.error.details);
    const startedAt = Date.now();
    const t0 = performance.now();
    // Called from the skill node's execution: the active context is its span, so the skill's run nests under it.
    const traced = scope.tracing ? startGraphSpan(scope.tracing, scope.runId, checked.workflow, context.active()) : undefined;
    const outcome = await new GraphRun(scope, checked.graph, {
      prefix: request.prefix,
      stack: [...request.stack, stackId],
      signal: request.signal,
      overrides: bound.overrides,
      forward: request.record,
      ...(traced ? { traceParent: traced.context } : {}),
    }).start();
    if (traced) endGraphSpan(traced, outcome.status, outcome.error);
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
