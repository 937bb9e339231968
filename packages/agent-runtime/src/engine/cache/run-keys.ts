import type { NodeValues } from "@weft/types";
import type { CompiledGraph } from "../compiled-graph.ts";
import { cacheKey, type CacheKey, type KeyHead } from "./cache-key.ts";
import type { LateKeys } from "./output-cache.ts";

/**
 * The cache keys of one graph run's nodes, built from what the run holds to its end: each node's inputs' refs and
 * its outputs. Built at once for a lookup, or later for a cache that stores entries before their keys (`setLater`):
 * a node's refs and outputs never change once it has ended, so a key built late is the key built then.
 */
export class RunKeys implements LateKeys {
  constructor(
    private readonly graph: CompiledGraph,
    /** The run's refs by node (`NodeEndings.refs`). */
    private readonly refs: Float64Array,
    /** The run's outputs by node (`NodeEndings.outputs`). */
    private readonly outputs: readonly (NodeValues | null | undefined)[],
    /** Literal inputs the run gives nodes instead of their own. */
    private readonly overrides: ReadonlyMap<number, NodeValues>,
    /** The graph's key heads, when kept (`keyHeads`). */
    private readonly heads: readonly (KeyHead | undefined)[] | undefined,
  ) {}

  keyOf(i: number): CacheKey {
    return cacheKey(this.graph, i, this.refs, this.overrides.size > 0 ? this.overrides.get(i) : undefined, this.heads);
  }

  outputsOf(i: number): NodeValues {
    return this.outputs[i] as NodeValues;
  }
}
