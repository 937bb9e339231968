import type { NodeValues } from "@weft/types";
import type { CacheKey } from "./cache-key.ts";

/** What an OutputCache holds under a key. */
export interface CacheEntry {
  readonly key: CacheKey;
  readonly outputs: NodeValues;
  /**
   * A number for this entry, unique within its cache and never reused: downstream keys name their
   * upstream keys by it, so keys stay short down a chain. A new entry under a key gets a new ref.
   * A non-negative integer (negative refs stand for outputs that are not cached).
   */
  readonly ref: number;
}

/**
 * Where the keys and outputs of nodes stored with `OutputCache.setLater` are found when the cache needs them: a graph
 * run, which holds every node's inputs' refs and outputs to its end anyway.
 */
export interface LateKeys {
  /** Node `i`'s key, the same as one built when it was stored (never yet stored: a new object). */
  keyOf(i: number): CacheKey;
  /** Node `i`'s outputs, as given when it was stored. */
  outputsOf(i: number): NodeValues;
}

/** Where outputs of cacheable nodes are kept between runs, by cache key. */
export interface OutputCache {
  /** The entry stored under `key` (whose key `equals` it), if any. */
  get(key: CacheKey): CacheEntry | undefined;
  /** Stores outputs under `key`, replacing what was there, and returns the new entry. */
  set(key: CacheKey, outputs: NodeValues): CacheEntry;
  /**
   * Optional. Stores node `i`'s outputs under its key as `set` would, but asks `keys` for its key and outputs only when
   * something reads the cache, and returns the new entry's ref. Most keys of a first run are never looked up (the engine
   * builds one only for a lookup): a cache without this method is given `set` with a key built at once.
   */
  setLater?(keys: LateKeys, i: number): number;
}
