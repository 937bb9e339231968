import { engineError, engineFailure, type NodeValues, type Observation, type RunResult, type SubworkflowOptions } from "@weft/types";
import type { Context } from "@opentelemetry/api";
import type { CompiledGraph } from "./compiled-graph.ts";
import { deadEdgeReason, resolveInputs, type DeadEdge } from "./node-inputs.ts";
import { keyHeads, type CacheKey } from "./cache/index.ts";
import { NodeState } from "./node-state.ts";
import { runOutcome, type GraphOutcome, type Halt } from "./run-outcome.ts";
import { EngineNodeContext, type ContextOwner } from "./node-context.ts";
import { AttemptSignal, classifyResult, invalidOutputsError, runAttempts, toNodeError, type AttemptHost, type CallResult, type InvocationOutcome } from "./node-attempts.ts";
import type { RunScope } from "./run-scope.ts";
import type { RecordedNode } from "./recorded.ts";
import { NodeSpans } from "./node-spans.ts";
import { RunPause } from "./run-pause.ts";
import { CallPrefixes } from "./call-prefixes.ts";
import { NO_VALUES, NodeEndings, type NodeEndingsHost, type NodeEndingsOptions } from "./node-endings.ts";

export interface GraphRunOptions extends NodeEndingsOptions {
  /** Workflow ids from the top-level run down to this graph. */
  stack: readonly string[];
  signal?: AbortSignal;
  /** Literal inputs that replace a node's own (the interface inputs of `core:workflow-input` nodes). */
  overrides: Map<number, NodeValues>;
  /** 1 = run even if cached (`rerunFrom` and what depends on it). */
  forced?: Uint8Array;
  /** By node index: nodes that end as an earlier run recorded them, without running (a fork; top level only). */
  recorded?: readonly (RecordedNode | undefined)[];
  /** The span this graph's node spans are children of (the run's, or a skill's); only when the run is traced. */
  traceParent?: Context;
}

/** How long a stretch of synchronous nodes may hold the event loop before the run yields once. */
const SLICE_MS = 16;
/** The clock is read once per this many nodes (a power of two, less one, for a mask): reading it per node costs more than a cheap node. */
const CLOCK_CHECK_MASK = 255;

/**
 * One execution of a compiled graph: a ready queue fed by in-degree counting, bounded concurrency
 * for asynchronous nodes, skipping, failure policies, caching and cancellation. Synchronous nodes
 * finish inside the scheduling loop (no promise, no tick per node); nothing here recurses. How a node
 * ends (its observation, event, outputs, cache ref) is node-endings.ts's.
 */
export class GraphRun implements ContextOwner, NodeEndingsHost {
  private readonly size: number;
  private readonly pending: Int32Array;
  private readonly ends: NodeEndings;
  /** Nodes whose inputs are all settled, in the order they became ready: each node enters once, so `size` slots suffice. */
  private readonly queue: Int32Array;
  private head = 0;
  private tail = 0;
  private running = 0;
  private done = 0;
  private pumping = false;
  private finished = false;
  private awaitingAbandoned = false;
  private halted: Halt | null = null;
  private readonly active = new Map<number, Observation>();
  /** The first dead input edge of the node being processed (`resolveInputs`). */
  private readonly dead: DeadEdge = { edge: -1 };
  /** Timed-out attempts that may still run; made on the first (a skill's or map item's graph run seldom has one). */
  private abandoned: Set<Promise<unknown>> | undefined;
  private readonly controller = new AbortController();
  /** `controller.signal`, read once: the getter is a native call, and every node's context takes the signal. */
  private readonly runSignal = this.controller.signal;
  /** Undefined unless the run is traced: then no node pays for tracing. */
  private readonly spans: NodeSpans | undefined;
  /** Made on the first subworkflow call of one of this graph's nodes. */
  private callPrefixes: CallPrefixes | undefined;
  private graceTimer: ReturnType<typeof setTimeout> | undefined;
  private resolveOutcome!: (outcome: GraphOutcome) => void;
  private readonly onExternalAbort = () => this.halt({ kind: "cancel", reason: "the run was cancelled", error: engineError("CANCELLED", "the run was cancelled") });

  constructor(
    readonly scope: RunScope,
    private readonly graph: CompiledGraph,
    private readonly options: GraphRunOptions,
  ) {
    const n = graph.size;
    this.size = n;
    this.pending = new Int32Array(n);
    for (let i = 0; i < n; i++) this.pending[i] = graph.inStart[i + 1] - graph.inStart[i];
    this.queue = new Int32Array(n);
    this.spans = scope.tracing && options.traceParent ? new NodeSpans(scope.tracing, options.traceParent, scope.runId, graph.defs) : undefined;
    this.ends = new NodeEndings(scope, graph, options, this.spans, this, options.overrides, keyHeads(graph));
  }

  start(): Promise<GraphOutcome> {
    return new Promise((resolve) => {
      this.resolveOutcome = resolve;
      const signal = this.options.signal;
      if (signal?.aborted) this.onExternalAbort();
      else signal?.addEventListener("abort", this.onExternalAbort, { once: true });
      for (let i = 0; i < this.size; i++) if (this.pending[i] === 0) this.queue[this.tail++] = i;
      this.pump();
    });
  }

  private pump = (): void => {
    if (this.pumping || this.finished) return;
    this.pumping = true;
    const clock = this.scope.clock;
    const sliceStart = clock.read();
    let count = 0;
    const queue = this.queue;
    while (this.head < this.tail && this.halted === null && this.running < this.scope.concurrency) {
      this.process(queue[this.head++]);
      // A long stretch of synchronous nodes yields once in a while so aborts and I/O get through.
      // (Read the clock here: a stretch of cache hits reads it nowhere else.)
      if ((++count & CLOCK_CHECK_MASK) === 0 && clock.read() - sliceStart > SLICE_MS) {
        setImmediate(this.pump);
        break;
      }
    }
    this.pumping = false;
    this.checkFinished();
  };

  /** Decides what happens to a node whose inputs are all settled: skip it, or run it. */
  private process(i: number): void {
    const recorded = this.options.recorded?.[i];
    const ends = this.ends;
    if (recorded !== undefined) {
      ends.replay(i, recorded);
      return;
    }
    const g = this.graph;
    const outputs = ends.outputs;
    const overrides = this.options.overrides;
    const inputs = resolveInputs(g, i, outputs, overrides.size > 0 ? (overrides.get(i) ?? g.literals[i]) : g.literals[i], this.dead);
    const dead = this.dead.edge;
    if (dead >= 0 && !g.partial[i]) {
      ends.skip(i, deadEdgeReason(g, dead, ends.state, outputs, this.options.prefix), ends.qualified(g.inSrc[dead]));
      return;
    }
    if (dead >= 0) {
      const missing = g.requiredIds[i].find((id) => inputs[id] === undefined || (Array.isArray(inputs[id]) && (inputs[id] as unknown[]).length === 0));
      if (missing !== undefined) {
        ends.skip(i, `required input "${missing}" has no value: ${deadEdgeReason(g, dead, ends.state, outputs, this.options.prefix)}`, ends.qualified(g.inSrc[dead]));
        return;
      }
    }
    this.invoke(i, inputs);
  }

  /** Runs a node whose inputs are ready: from the cache if it may, else synchronously to the end when it can, else through `runAttempts` (async, retries, timeouts). */
  private invoke(i: number, inputs: NodeValues): void {
    const g = this.graph;
    const scope = this.scope;
    const def = g.defs[i];
    const ends = this.ends;
    const nodeId = ends.qualified(i);
    // Qualified node ids are unique within a run (repeated skill calls get their own prefix).
    const invocationId = ends.invocationPrefix + nodeId;
    // A key is built here only for a lookup (the node's outputs are stored under it if it misses): else `complete` has
    // the cache build it when it needs it.
    let key: CacheKey | undefined;
    if (g.cacheable[i] && (this.options.forced === undefined || !this.options.forced[i]) && ends.mayBeCached(i)) {
      key = ends.keys.keyOf(i);
      const hit = scope.cache.get(key);
      if (hit !== undefined) {
        ends.refs[i] = hit.ref;
        ends.completeFromCache(i, nodeId, invocationId, inputs, hit.outputs);
        return;
      }
    }
    // The node's time starts at the latest clock reading (the end of the node before it, or the
    // start of this scheduling slice) and ends at the reading right after its call.
    const clock = scope.clock;
    const t0 = clock.last;
    const startedAt = clock.wall(t0);
    const obs = ends.observation(nodeId, invocationId, def.spec.type, "completed", inputs, NO_VALUES, startedAt, false, 1);
    const emitter = scope.emitter;
    if (emitter.enabled) emitter.nodeStarted(nodeId, invocationId, def.spec.type, inputs, 1, startedAt);
    const policy = g.policies[i];
    const attemptSignal = policy.timeoutMs !== undefined ? new AttemptSignal(this.runSignal) : undefined;
    // The first call inline (callNode's work without its result object): most nodes end here.
    const ctx = new EngineNodeContext(this, i, nodeId, invocationId, g.configs[i], attemptSignal?.signal ?? this.runSignal);
    let value: unknown;
    let call: CallResult | undefined;
    const spans = this.spans;
    try {
      if (spans === undefined) value = def.execute(inputs, ctx);
      else {
        spans.start(i, nodeId, def.spec.type, invocationId);
        value = spans.run(i, () => def.execute(inputs, ctx));
      }
    } catch (error) {
      call = { threw: true, error };
    }
    clock.read();
    if (call === undefined) {
      const request = RunPause.requestOf(value);
      if (request !== undefined) {
        attemptSignal?.dispose();
        ends.suspend(i, obs, t0, request);
        return;
      }
      if (classifyResult(value) === "outputs") {
        attemptSignal?.dispose();
        ends.complete(i, obs, t0, value as NodeValues, key);
        return;
      }
      call = { threw: false, value };
    }
    const kind = call.threw ? "threw" : classifyResult(call.value);
    // Not over within its call: those watching see it running from here.
    if (emitter.enabled) emitter.flushStart();
    if (policy.retries === 0 && (kind === "threw" || kind === "invalid")) {
      attemptSignal?.dispose();
      ends.fail(i, obs, t0, call.threw ? toNodeError(call.error) : invalidOutputsError(call.value));
      return;
    }
    this.running++;
    ends.state[i] = NodeState.Running;
    this.active.set(i, obs);
    const host: AttemptHost = {
      runSignal: this.runSignal,
      emitter,
      maxOutputBytes: scope.maxOutputBytes,
      call: (signal) => this.callNode(i, nodeId, invocationId, inputs, signal),
      abandon: (work) => this.abandon(work),
      ...(spans ? { inContext: <T>(step: () => T) => spans.run(i, step) } : {}),
    };
    runAttempts(host, obs, policy, call, attemptSignal).then((outcome) => this.settle(i, obs, t0, outcome, key));
  }

  private callNode(i: number, nodeId: string, invocationId: string, inputs: NodeValues, signal: AbortSignal): CallResult {
    const ctx = new EngineNodeContext(this, i, nodeId, invocationId, this.graph.configs[i], signal);
    const def = this.graph.defs[i];
    try {
      return { threw: false, value: this.spans ? this.spans.run(i, () => def.execute(inputs, ctx)) : def.execute(inputs, ctx) };
    } catch (error) {
      return { threw: true, error };
    }
  }

  /** Ends a node that went asynchronous (or retried), once its attempts are over, and resumes scheduling. */
  private settle(i: number, obs: Observation, t0: number, outcome: InvocationOutcome, key: CacheKey | undefined): void {
    this.scope.clock.read();
    this.running--;
    this.active.delete(i);
    // After the grace period of a cancellation the run has already been reported as ended.
    if (this.finished) return;
    switch (outcome.kind) {
      case "completed":
        this.ends.complete(i, obs, t0, outcome.outputs, key);
        break;
      case "failed":
        this.ends.fail(i, obs, t0, outcome.error);
        break;
      case "cancelled":
        this.ends.cancel(i, obs, t0, outcome.error);
        break;
      default: {
        const never: never = outcome;
        return never;
      }
    }
    this.pump();
  }

  /** A node reached a final state: count it and release what waits on it. */
  release(i: number): void {
    this.done++;
    const g = this.graph;
    const to = g.outStart[i + 1];
    for (let e = g.outStart[i]; e < to; e++) {
      const target = g.outDst[e];
      if (--this.pending[target] === 0) this.queue[this.tail++] = target;
    }
  }

  private abandon(work: Promise<unknown>): void {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    const abandoned = (this.abandoned ??= new Set());
    abandoned.add(settled);
    settled.then(() => abandoned.delete(settled));
  }

  /** Stop starting nodes, tell the running ones, and end once they have settled (or the grace period is over). */
  halt(halt: Halt): void {
    if (this.halted !== null || this.finished) return;
    this.halted = halt;
    this.controller.abort(engineFailure("CANCELLED", halt.reason));
    if (this.running > 0) this.graceTimer = setTimeout(() => this.finish(), this.scope.graceMs);
    if (!this.pumping) this.checkFinished();
  }

  /** Ends the run once every node is final (or, after a halt, once nothing runs), first waiting out abandoned attempts. */
  private checkFinished(): void {
    if (this.finished || this.awaitingAbandoned) return;
    if (this.halted !== null ? this.running > 0 : this.done < this.size && !this.onlyWaitsLeft()) return;
    const abandoned = this.abandoned;
    if (abandoned === undefined || abandoned.size === 0) {
      this.finish();
      return;
    }
    // Timed-out attempts were told to stop: give them the grace period to do so before the run ends.
    this.awaitingAbandoned = true;
    const grace = new Promise((resolve) => setTimeout(resolve, this.scope.graceMs).unref?.());
    Promise.race([Promise.all(abandoned), grace]).then(() => this.finish());
  }

  /** Nothing runs or is ready, and what has not settled waits behind a paused node. */
  private onlyWaitsLeft(): boolean {
    const pause = this.ends.pause;
    return pause !== undefined && pause.paused && this.running === 0 && this.head === this.tail;
  }

  /** Reports the run's outcome exactly once: nodes still running after a halt are cancelled, nodes never started are skipped. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.graceTimer);
    this.options.signal?.removeEventListener("abort", this.onExternalAbort);
    const halt = this.halted;
    const ends = this.ends;
    if (halt !== null) {
      const clock = this.scope.clock;
      const now = clock.read();
      for (const [i, obs] of this.active) {
        this.scope.logger.warn("a node did not stop after the run was cancelled; giving up on it", { nodeId: obs.nodeId, graceMs: this.scope.graceMs });
        ends.cancel(i, obs, now - (clock.wall(now) - obs.startedAt), engineError("CANCELLED", `${halt.reason}; the node did not stop within ${this.scope.graceMs} ms`));
      }
      for (let i = 0; i < this.size; i++) {
        if (ends.state[i] === NodeState.Waiting) ends.skip(i, halt.kind === "cancel" ? "the run was cancelled before this node started" : halt.reason, halt.causeNodeId);
      }
    }
    this.resolveOutcome(runOutcome(halt, ends.failures, ends.runOutputs, ends.observations, ends.pause?.waits));
  }

  runSubworkflow(index: number, callerId: string, workflowId: string, inputs: NodeValues, signal: AbortSignal, options: SubworkflowOptions = {}): Promise<RunResult> {
    // A node that calls more than one subworkflow (or retries) gets a fresh namespace for each call.
    const prefix = (this.callPrefixes ??= new CallPrefixes()).next(index, callerId, options.label);
    return this.scope.runSubworkflow(this.scope, {
      workflowId,
      ...(options.asNodeType ? { asNodeType: true } : {}),
      inputs,
      signal,
      prefix,
      stack: this.options.stack,
      record: (obs) => this.ends.record(obs),
    });
  }
}
