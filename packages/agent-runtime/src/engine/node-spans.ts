import { context, trace, type Context, type Span } from "@opentelemetry/api";
import type { Observation } from "@weft/types";
import { endFailed, WEFT, type Tracing } from "../tracing/index.ts";

/**
 * The spans of one graph's node invocations (made only when the run is traced): each a child of the graph's span
 * (the run's, or a skill's), and the context its node executes in, so what the node calls (an LLM, a skill, an HTTP
 * request) nests under it.
 */
export class NodeSpans {
  private readonly spans: (Span | undefined)[];
  private readonly contexts: (Context | undefined)[];

  constructor(
    private readonly tracing: Tracing,
    private readonly parent: Context,
    private readonly runId: string,
    size: number,
  ) {
    this.spans = new Array<Span | undefined>(size);
    this.contexts = new Array<Context | undefined>(size);
  }

  /** Starts node `i`'s span; answers the context to execute it in. */
  start(i: number, nodeId: string, nodeType: string, invocationId: string): Context {
    const span = this.tracing.tracer.startSpan(
      `node ${nodeId}`,
      { attributes: { [WEFT.runId]: this.runId, [WEFT.nodeId]: nodeId, [WEFT.nodeType]: nodeType, [WEFT.invocationId]: invocationId } },
      this.parent,
    );
    const ctx = trace.setSpan(this.parent, span);
    this.spans[i] = span;
    this.contexts[i] = ctx;
    return ctx;
  }

  /** Runs `execute` in node `i`'s context (a retry's attempt too). */
  run<T>(i: number, execute: () => T): T {
    const ctx = this.contexts[i];
    return ctx ? context.with(ctx, execute) : execute();
  }

  /** Ends node `i`'s span as its observation ended (a skipped node has none). */
  end(i: number, obs: Observation): void {
    const span = this.spans[i];
    if (!span) return;
    this.spans[i] = undefined;
    this.contexts[i] = undefined;
    span.setAttribute(WEFT.cached, obs.cached);
    span.setAttribute(WEFT.status, obs.status);
    if (obs.attempts > 1) span.setAttribute("weft.attempts", obs.attempts);
    if (obs.error) endFailed(span, obs.error.code, obs.error.message);
    else span.end();
  }
}
