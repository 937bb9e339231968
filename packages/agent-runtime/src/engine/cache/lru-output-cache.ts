import type { NodeValues } from "@weft/types";
import type { CacheKey } from "./cache-key.ts";
import type { CacheEntry, OutputCache } from "./output-cache.ts";

/**
 * The default OutputCache: an in-memory LRU in two generations (as in quick-lru). New entries go to
 * the current generation; when it is full it becomes the previous one and the old previous one is
 * dropped. It keeps at least the `capacity` most recently used entries and at most twice that, with
 * O(1) work per operation (evicting single oldest keys from a Map is slow on JavaScriptCore).
 */
/** Entries kept by default: an edited workflow of a few hundred nodes keeps many versions of each node's outputs, and an entry holds only references. */
const DEFAULT_CAPACITY = 10_000;

export class LruOutputCache implements OutputCache {
  /** By key hash: an entry whose key differs from the one asked for is a miss (and is replaced by its set). */
  private current = new Map<number, CacheKey>();
  private previous = new Map<number, CacheKey>();
  private refs = 0;

  constructor(readonly capacity = DEFAULT_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`LruOutputCache capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    let size = this.current.size;
    for (const key of this.previous.keys()) if (!this.current.has(key)) size++;
    return size;
  }

  get(key: CacheKey): CacheEntry | undefined {
    const hit = this.current.get(key.hash);
    if (hit !== undefined) return hit.equals(key) ? hit : undefined;
    const old = this.previous.get(key.hash);
    if (old === undefined || !old.equals(key)) return undefined;
    // Used again: promote it to the current generation.
    this.previous.delete(key.hash);
    this.store(old);
    return old;
  }

  set(key: CacheKey, outputs: NodeValues): CacheEntry {
    // The key is the entry: one object per stored node, not a key and an entry beside it.
    const entry = key.unstored();
    entry.outputs = outputs;
    entry.ref = this.refs++;
    this.store(entry);
    return entry;
  }

  private store(entry: CacheKey): void {
    this.current.set(entry.hash, entry);
    if (this.current.size >= this.capacity) {
      this.previous = this.current;
      this.current = new Map();
    }
  }

  clear(): void {
    this.current.clear();
    this.previous.clear();
  }
}
