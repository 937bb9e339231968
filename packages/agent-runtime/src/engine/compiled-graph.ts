import type { IdIndex } from "./id-index.ts";
import type { NodeDefinition, NodeValues, PortSpec, PortType, Workflow } from "@weft/types";

/** A node's error policy with the schema's defaults filled in. */
export interface ResolvedPolicy {
  onError: "stop" | "continue" | "route";
  retries: number;
  retryBackoffMs: number;
  timeoutMs?: number;
}

/** The literal inputs of every node that has none: one shared object, so the run can tell them apart without looking inside. */
export const NO_LITERALS: NodeValues = Object.freeze({}) as NodeValues;

export const DEFAULT_POLICY: ResolvedPolicy = Object.freeze({ onError: "continue", retries: 0, retryBackoffMs: 200 });

/** One port of the workflow's interface and the node that declares it. */
export interface InterfaceBinding {
  name: string;
  node: number;
  type: PortType;
  required: boolean;
  default: unknown;
}

/**
 * A validated workflow in the form the scheduler runs: nodes by index, edges as compressed
 * adjacency arrays (incoming edges of node i are `inStart[i] .. inStart[i+1]`, in edge order).
 */
export interface CompiledGraph {
  workflow: Workflow;
  size: number;
  ids: string[];
  indexOf: IdIndex;
  defs: NodeDefinition[];
  /** Config with the spec's defaults filled in. */
  configs: Record<string, unknown>[];
  literals: NodeValues[];
  withDefaults: (readonly PortSpec[])[];
  requiredIds: (readonly string[])[];
  policies: ResolvedPolicy[];
  /** 1 where the node runs with dead input edges dropped (`acceptsPartialInputs`). */
  partial: Uint8Array;
  /** 1 where outputs may be cached (idempotent or `policy.cacheable`). */
  cacheable: Uint8Array;
  inStart: Int32Array;
  inSrc: Int32Array;
  inHandle: string[];
  inPort: string[];
  inMulti: Uint8Array;
  /** 1 on the first edge into its (node, port) in edge order. */
  inFirst: Uint8Array;
  outStart: Int32Array;
  outDst: Int32Array;
  interfaceInputs: InterfaceBinding[];
  interfaceOutputs: InterfaceBinding[];
  /** A one-node workflow without interface outputs returns all the node's outputs (single-node wrapping). */
  singleNodeOutputs: boolean;
  /** Graph runs started on it so far: from its second on, its cache key heads are kept (cache-key.ts `keyHeads`). */
  runs: number;
}

/** Marks `start` and every node downstream of it (breadth-first, no recursion). */
export function downstreamOf(graph: CompiledGraph, start: number): Uint8Array {
  const marked = new Uint8Array(graph.size);
  const queue = [start];
  marked[start] = 1;
  for (let head = 0; head < queue.length; head++) {
    const i = queue[head];
    for (let e = graph.outStart[i]; e < graph.outStart[i + 1]; e++) {
      const t = graph.outDst[e];
      if (!marked[t]) {
        marked[t] = 1;
        queue.push(t);
      }
    }
  }
  return marked;
}
