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

/** Where outputs of cacheable nodes are kept between runs, by cache key. */
export interface OutputCache {
  /** The entry stored under `key` (whose key `equals` it), if any. */
  get(key: CacheKey): CacheEntry | undefined;
  /** Stores outputs under `key`, replacing what was there, and returns the new entry. */
  set(key: CacheKey, outputs: NodeValues): CacheEntry;
}
