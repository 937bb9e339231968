import { context, trace, type Context, type Span } from "@opentelemetry/api";
import type { NodeDefinition, Observation } from "@weft/types";
import { endFailed, WEFT, type Tracing } from "../tracing/index.ts";

/**
 * The spans of one graph's node invocations (made only when the run is traced): each a child of the graph's span
 * (the run's, or a skill's). A node that may call out (an LLM, a skill, an HTTP request) executes in its span's
 * context, so what it calls nests under it; an idempotent node has no side effects, so nothing can nest under it and
 * it executes in no context of its own (entering one per node cost ~0.3 ms CPU per agent step, bench/agent.bench.ts).
 */
export class NodeSpans {
  private readonly spans: (Span | undefined)[];
  private readonly contexts: (Context | undefined)[];

  constructor(
    private readonly tracing: Tracing,
    private readonly parent: Context,
    private readonly runId: string,
    private readonly defs: readonly NodeDefinition[],
  ) {
    this.spans = new Array<Span | undefined>(defs.length);
    this.contexts = new Array<Context | undefined>(defs.length);
  }

  /** Starts node `i`'s span. */
  start(i: number, nodeId: string, nodeType: string, invocationId: string): void {
    this.spans[i] = this.tracing.tracer.startSpan(
      `node ${nodeId}`,
      { attributes: { [WEFT.runId]: this.runId, [WEFT.nodeId]: nodeId, [WEFT.nodeType]: nodeType, [WEFT.invocationId]: invocationId } },
      this.parent,
    );
  }

  /** Runs `execute` (a retry's attempt too) in node `i`'s context, unless the node is idempotent. */
  run<T>(i: number, execute: () => T): T {
    const span = this.spans[i];
    if (span === undefined || this.defs[i].spec.flags.idempotent) return execute();
    let ctx = this.contexts[i];
    if (ctx === undefined) this.contexts[i] = ctx = trace.setSpan(this.parent, span);
    return context.with(ctx, execute);
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
