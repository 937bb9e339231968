import { context, propagation, ROOT_CONTEXT, SpanKind, trace, type Context } from "@opentelemetry/api";
import { endThrown, WEFT, type Tracing } from "@weft/agent-runtime";
import type { Workflow } from "@weft/types";
import { RUN_QUEUE } from "./queue-names.ts";

/**
 * Queues a run inside a short `enqueue run <workflow>` span (a producer, the trace's root unless the caller was traced)
 * and hands `add` that span's `traceparent` for the job: the worker's `run <workflow>` span becomes its child, so the
 * run is one trace across both processes.
 */
export async function traceEnqueue(tracing: Tracing, runId: string, workflow: Workflow, add: (traceparent: string | undefined) => Promise<void>): Promise<void> {
  const name = workflow.name || workflow.id;
  const span = tracing.tracer.startSpan(`enqueue run ${name}`, {
    kind: SpanKind.PRODUCER,
    attributes: { [WEFT.runId]: runId, [WEFT.workflowId]: workflow.id, "messaging.system": "bullmq", "messaging.operation.type": "send", "messaging.destination.name": RUN_QUEUE },
  });
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), carrier);
  try {
    await add(carrier.traceparent);
  } catch (error) {
    endThrown(span, error);
    throw error;
  }
  span.end();
}

/** The trace a run job carries (checked by the job schema, sealed with it); a fresh trace without one. */
export function jobTraceParent(traceparent: string | undefined): Context {
  return traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
}
