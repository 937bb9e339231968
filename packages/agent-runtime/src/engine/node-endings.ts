import { ERROR_OUTPUT_ID, INTERFACE_VALUE_PORT, type NodeError, type NodeValues, type Observation } from "@weft/types";
import type { CompiledGraph } from "./compiled-graph.ts";
import { NO_REF, RunKeys, volatileRef, type CacheKey, type KeyHead } from "./cache/index.ts";
import { NodeState } from "./node-state.ts";
import type { Halt } from "./run-outcome.ts";
import type { RunScope } from "./run-scope.ts";
import type { RecordedNode } from "./recorded.ts";
import { jsonSizeUpTo, outputTooLarge } from "./output-size.ts";
import type { NodeSpans } from "./node-spans.ts";
import { RunPause } from "./run-pause.ts";

/** Shared placeholders (frozen): most observations have no chunks, and outputs arrive later. */
const NO_CHUNKS: unknown[] = Object.freeze([]) as unknown as unknown[];
export const NO_VALUES: NodeValues = Object.freeze({}) as NodeValues;

/** What the scheduler does when a node has ended: release what waits on it, or stop the run (a failure whose policy is "stop"). */
export interface NodeEndingsHost {
  release(i: number): void;
  halt(halt: Halt): void;
}

/** Where a graph's nodes are named and what their observations go to (the graph run's options). */
export interface NodeEndingsOptions {
  /** Prefix of node ids in events and observations: "" at top level, `<skillNodeId>/` inside a skill. */
  prefix: string;
  /** A node may pause the run (`suspendRun`): top level only, and only when the caller can resume it. */
  mayPause?: boolean;
  /** Called with every observation of this graph (a skill forwards them to its caller's graph). */
  forward?: (observation: Observation) => void;
}

/**
 * How the nodes of one graph run end — completed (run or from the cache), replayed from a record, failed, suspended,
 * cancelled or skipped — and what each ending leaves: the node's state, outputs and cache ref, its observation and
 * final event, the run's outputs and failures. Every ending goes through `settleNode`; the scheduler (graph-run.ts)
 * decides when a node runs and is told through `NodeEndingsHost` what to release.
 */
export class NodeEndings {
  readonly state: Uint8Array;
  readonly outputs: (NodeValues | null | undefined)[];
  /** Per node, the ref its outputs go by in downstream cache keys (set when it completes; NO_REF until then). */
  readonly refs: Float64Array;
  /** The cache keys of this run's nodes: built for a lookup, or when the cache next needs them (`complete`). */
  readonly keys: RunKeys;
  /**
   * 1 where the node's ref names an entry stored in this graph run that no stored key names yet: a key built on
   * it cannot be in the cache, so its lookup is skipped (`mayBeCached`). Down a chain of first runs, every lookup.
   */
  private readonly fresh: Uint8Array;
  readonly failures: { nodeId: string; error: NodeError }[] = [];
  readonly runOutputs: NodeValues = {};
  readonly observations: Observation[] = [];
  /** Nodes that paused the run (`suspendRun`): they and what depends on them stay unsettled until a later execution. Made on the first pause. */
  pause: RunPause | undefined;
  /** `<runId>:`, the start of every invocation id of this run: made once, not once per node. */
  readonly invocationPrefix: string;
  private readonly outputNames: Map<number, string>;

  constructor(
    private readonly scope: RunScope,
    private readonly graph: CompiledGraph,
    private readonly options: NodeEndingsOptions,
    private readonly spans: NodeSpans | undefined,
    private readonly host: NodeEndingsHost,
    overrides: ReadonlyMap<number, NodeValues>,
    heads: readonly (KeyHead | undefined)[] | undefined,
  ) {
    const n = graph.size;
    this.state = new Uint8Array(n);
    this.outputs = new Array(n);
    this.refs = new Float64Array(n).fill(NO_REF);
    this.fresh = new Uint8Array(n);
    this.keys = new RunKeys(graph, this.refs, this.outputs, overrides, heads);
    this.outputNames = new Map(graph.interfaceOutputs.map((b) => [b.node, b.name]));
    this.invocationPrefix = scope.runId + ":";
  }

  qualified(i: number): string {
    return this.options.prefix === "" ? this.graph.ids[i] : this.options.prefix + this.graph.ids[i];
  }

  /**
   * The one shape of an observation (every field, in this order) so every observation of a run
   * shares one object layout; `error` and `skipReason` are added only where there is one.
   */
  observation(
    nodeId: string,
    invocationId: string,
    nodeType: string,
    status: Observation["status"],
    inputs: NodeValues,
    outputs: NodeValues,
    startedAt: number,
    cached: boolean,
    attempts: number,
  ): Observation {
    return { runId: this.scope.runId, nodeId, invocationId, nodeType, status, inputs, outputs, chunks: NO_CHUNKS, startedAt, durationMs: 0, cached, attempts };
  }

  /**
   * The one ending of every node, whatever its outcome: its final state and outputs, its final event
   * (read off the observation), the observation kept, and what waits on it released.
   */
  private settleNode(i: number, state: number, outputs: NodeValues | null, obs: Observation, causeNodeId?: string): void {
    this.state[i] = state;
    this.outputs[i] = outputs;
    const emitter = this.scope.emitter;
    if (emitter.enabled) {
      const clock = this.scope.clock;
      if (obs.status === "completed") emitter.nodeCompleted(obs.nodeId, obs.invocationId, obs.nodeType, obs.inputs, obs.outputs, obs.durationMs, obs.cached, clock.wall(clock.last));
      else if (obs.error !== undefined) emitter.nodeFailed(obs.nodeId, obs.invocationId, obs.error, obs.durationMs, clock.wall(clock.last), obs.handled === true ? obs.outputs : undefined);
      else emitter.nodeSkipped(obs.nodeId, obs.skipReason ?? "", causeNodeId);
    }
    this.spans?.end(i, obs);
    this.record(obs);
    this.host.release(i);
  }

  record(obs: Observation): void {
    this.observations.push(obs);
    this.options.forward?.(obs);
  }

  private collectOutputs(i: number, inputs: NodeValues, outputs: NodeValues): void {
    if (this.graph.singleNodeOutputs) Object.assign(this.runOutputs, outputs);
    else if (this.outputNames.size > 0) {
      const name = this.outputNames.get(i);
      if (name !== undefined && inputs[INTERFACE_VALUE_PORT] !== undefined) this.runOutputs[name] = inputs[INTERFACE_VALUE_PORT];
    }
  }

  /**
   * `complete`, `fail` and `cancel` take the node's end from the latest clock reading: callers read it when the node's
   * work ended. `key` is the node's cache key when one was built for a lookup.
   */
  complete(i: number, obs: Observation, t0: number, outputs: NodeValues, key: CacheKey | undefined): void {
    const limit = this.scope.maxOutputBytes;
    // Before anything keeps them (cache, events, observations): too large, they are dropped here.
    if (jsonSizeUpTo(outputs, limit) > limit) {
      this.fail(i, obs, t0, outputTooLarge("outputs", outputs, limit));
      return;
    }
    obs.outputs = outputs;
    obs.durationMs = this.scope.clock.last - t0;
    // Outputs of a node that is not cacheable differ per invocation, and so do keys downstream.
    if (this.graph.cacheable[i] === 1) {
      const cache = this.scope.cache;
      // Without a key built for a lookup, one is built only if the cache is read again (`setLater`): on a first run,
      // down a chain, no key but the first is ever looked up. `setLater` reads the outputs from `this.outputs`.
      this.outputs[i] = outputs;
      if (key !== undefined) this.refs[i] = cache.set(key, outputs).ref;
      else if (cache.setLater !== undefined) this.refs[i] = cache.setLater(this.keys, i);
      else this.refs[i] = cache.set(this.keys.keyOf(i), outputs).ref;
      this.fresh[i] = 1;
      // A stored key names the refs of its sources: keys built on them may be in the cache from now on.
      const g = this.graph;
      const to = g.inStart[i + 1];
      for (let e = g.inStart[i]; e < to; e++) this.fresh[g.inSrc[e]] = 0;
    } else this.refs[i] = volatileRef();
    this.collectOutputs(i, obs.inputs, outputs);
    this.settleNode(i, NodeState.Completed, outputs, obs);
  }

  /**
   * Whether node `i`'s key may be in the cache: not when it names an entry this graph run just stored that no stored
   * key names (nothing could have been stored under such a key; another run storing one meanwhile only misses a reuse).
   */
  mayBeCached(i: number): boolean {
    const g = this.graph;
    const to = g.inStart[i + 1];
    for (let e = g.inStart[i]; e < to; e++) if (this.fresh[g.inSrc[e]] === 1) return false;
    return true;
  }

  completeFromCache(i: number, nodeId: string, invocationId: string, inputs: NodeValues, outputs: NodeValues): void {
    const clock = this.scope.clock;
    const obs = this.observation(nodeId, invocationId, this.graph.defs[i].spec.type, "completed", inputs, outputs, clock.wall(clock.last), true, 0);
    this.spans?.start(i, nodeId, obs.nodeType, invocationId);
    this.collectOutputs(i, inputs, outputs);
    this.settleNode(i, NodeState.Completed, outputs, obs);
  }

  /** Ends a node as an earlier run recorded it (a fork): nothing of it runs, its observation is `cached`. */
  replay(i: number, recorded: RecordedNode): void {
    switch (recorded.status) {
      case "completed": {
        const nodeId = this.qualified(i);
        const clock = this.scope.clock;
        const obs = this.observation(nodeId, this.invocationPrefix + nodeId, this.graph.defs[i].spec.type, "completed", recorded.inputs, recorded.outputs, clock.wall(clock.last), true, 0);
        this.spans?.start(i, nodeId, obs.nodeType, obs.invocationId);
        // Not this run's computation: nothing downstream may be cached under a key built on it.
        this.refs[i] = volatileRef();
        this.collectOutputs(i, recorded.inputs, recorded.outputs);
        this.settleNode(i, NodeState.Completed, recorded.outputs, obs);
        return;
      }
      case "skipped":
        this.skip(i, recorded.reason, undefined);
        return;
      default: {
        const never: never = recorded;
        return never;
      }
    }
  }

  fail(i: number, obs: Observation, t0: number, error: NodeError): void {
    obs.status = "failed";
    obs.error = error;
    obs.durationMs = this.scope.clock.last - t0;
    const policy = this.graph.policies[i];
    let outputs: NodeValues | null = null;
    if (policy.onError === "route") {
      // Handled: the error is this node's one output (its other outputs are absent, so what reads them is skipped).
      outputs = {
        [ERROR_OUTPUT_ID]: { code: error.code, message: error.message, nodeId: obs.nodeId, nodeTitle: this.graph.workflow.nodes[i].label ?? this.graph.defs[i].spec.title, attempt: obs.attempts },
      };
      obs.outputs = outputs;
      obs.handled = true;
      this.refs[i] = volatileRef();
    } else {
      this.failures.push({ nodeId: obs.nodeId, error });
    }
    this.settleNode(i, NodeState.Failed, outputs, obs);
    if (policy.onError === "stop") {
      this.host.halt({ kind: "stop", reason: `the run stopped because "${obs.nodeId}" failed (its policy is "stop")`, causeNodeId: obs.nodeId, error });
    }
  }

  /** A node asked to pause the run (run-pause.ts): it stays unsettled, or fails where the run cannot pause. */
  suspend(i: number, obs: Observation, t0: number, request: Record<string, unknown>): void {
    const refused = (this.pause ??= new RunPause(this.options.mayPause === true, this.options.prefix)).pause(obs.nodeId, obs.nodeType, request);
    if (refused !== undefined) this.fail(i, obs, t0, refused);
    else this.state[i] = NodeState.Suspended;
  }

  cancel(i: number, obs: Observation, t0: number, error: NodeError): void {
    obs.status = "cancelled";
    obs.error = error;
    obs.durationMs = this.scope.clock.last - t0;
    this.settleNode(i, NodeState.Cancelled, null, obs);
  }

  skip(i: number, reason: string, causeNodeId: string | undefined): void {
    const nodeId = this.qualified(i);
    const clock = this.scope.clock;
    const obs = this.observation(nodeId, this.invocationPrefix + nodeId, this.graph.workflow.nodes[i].type, "skipped", NO_VALUES, NO_VALUES, clock.wall(clock.last), false, 0);
    obs.skipReason = reason;
    this.settleNode(i, NodeState.Skipped, null, obs, causeNodeId);
  }
}
