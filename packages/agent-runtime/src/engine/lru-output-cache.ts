import type { NodeValues } from "@weft/types";
import type { CacheEntry, OutputCache } from "./engine-options.ts";

/**
 * The default OutputCache: an in-memory LRU in two generations (as in quick-lru). New entries go to
 * the current generation; when it is full it becomes the previous one and the old previous one is
 * dropped. It keeps at least the `capacity` most recently used entries and at most twice that, with
 * O(1) work per operation (evicting single oldest keys from a Map is slow on JavaScriptCore).
 */
export class LruOutputCache implements OutputCache {
  private current = new Map<string, CacheEntry>();
  private previous = new Map<string, CacheEntry>();
  private refs = 0;

  constructor(readonly capacity = 10_000) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`LruOutputCache capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    let size = this.current.size;
    for (const key of this.previous.keys()) if (!this.current.has(key)) size++;
    return size;
  }

  get(key: string): CacheEntry | undefined {
    const hit = this.current.get(key);
    if (hit !== undefined) return hit;
    const old = this.previous.get(key);
    if (old !== undefined) {
      // Used again: promote it to the current generation.
      this.previous.delete(key);
      this.store(key, old);
    }
    return old;
  }

  set(key: string, outputs: NodeValues): CacheEntry {
    const entry: CacheEntry = { outputs, ref: this.refs++ };
    this.store(key, entry);
    return entry;
  }

  private store(key: string, entry: CacheEntry): void {
    this.current.set(key, entry);
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
