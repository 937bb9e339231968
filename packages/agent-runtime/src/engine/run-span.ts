import { trace, type Context, type Span } from "@opentelemetry/api";
import type { NodeError, RunResult } from "@weft/types";
import { endFailed, WEFT, type Tracing } from "../tracing/index.ts";

/** A traced graph's span and the context its node spans are children of. */
export interface GraphSpan {
  span: Span;
  context: Context;
}

/** The span of a run (`run <workflow>`), or of a skill or sub-workflow inside one: a child of `parent`. */
export function startGraphSpan(tracing: Tracing, runId: string, workflow: { id?: unknown; name?: unknown }, parent: Context): GraphSpan {
  const workflowId = typeof workflow.id === "string" ? workflow.id : "";
  const name = typeof workflow.name === "string" && workflow.name !== "" ? workflow.name : workflowId;
  const span = tracing.tracer.startSpan(`run ${name}`, { attributes: { [WEFT.runId]: runId, [WEFT.workflowId]: workflowId } }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

export function endGraphSpan(graph: GraphSpan, status: RunResult["status"], error: NodeError | undefined): void {
  graph.span.setAttribute(WEFT.status, status);
  if (status !== "completed" && error) endFailed(graph.span, error.code, error.message);
  else graph.span.end();
}
