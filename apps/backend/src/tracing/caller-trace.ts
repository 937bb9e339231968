import { context, propagation } from "@opentelemetry/api";

const CARRIED = ["traceparent", "tracestate"] as const;

/**
 * Runs `work` inside the caller's trace: the W3C `traceparent` (and `tracestate`) header of `request`, when it has a
 * valid one, becomes the parent of every span `work` starts (a run's `run <workflow>`, an agent's steps). A malformed
 * header is ignored (the W3C propagator refuses it; the work starts a trace of its own), never an error; without
 * tracing no propagator is registered and `work` just runs.
 */
export function inCallerTrace<T>(request: Request, work: () => T): T {
  const carrier: Record<string, string> = {};
  for (const name of CARRIED) {
    const value = request.headers.get(name);
    if (value !== null) carrier[name] = value;
  }
  if (carrier.traceparent === undefined) return work();
  return context.with(propagation.extract(context.active(), carrier), work);
}

/** The active trace's `traceparent` (undefined without one, or without tracing), for a job that continues it elsewhere. */
export function activeTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}
