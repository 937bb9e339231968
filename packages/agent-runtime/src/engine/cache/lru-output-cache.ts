import type { NodeValues } from "@weft/types";
import type { CacheKey } from "./cache-key.ts";
import type { CacheEntry, LateKeys, OutputCache } from "./output-cache.ts";

/**
 * The default OutputCache: an in-memory LRU in two generations (as in quick-lru). New entries go to
 * the current generation; when it is full it becomes the previous one and the old previous one is
 * dropped. It keeps at least the `capacity` most recently used entries and at most twice that, with
 * O(1) work per operation (evicting single oldest keys from a Map is slow on JavaScriptCore).
 *
 * Entries stored with `setLater` wait, in order, until the cache is next read (`get`, `set`, `size`) or another run
 * stores with `setLater`: their keys are built and stored then, as if stored one by one, so what
 * the cache holds and finds is as if each had been set at once.
 * A run whose keys are never looked up (a first run on a fresh engine, a cache nobody reads again) builds none.
 */
/** Entries kept by default: an edited workflow of a few hundred nodes keeps many versions of each node's outputs, and an entry holds only references. */
const DEFAULT_CAPACITY = 10_000;

export class LruOutputCache implements OutputCache {
  /** By key hash: an entry whose key differs from the one asked for is a miss (and is replaced by its set). */
  private current = new Map<number, CacheKey>();
  private previous = new Map<number, CacheKey>();
  private refs = 0;
  /** Nodes stored with `setLater` and not yet keyed, in order: their refs are the last ones given (any `set` stores them first). */
  private laterNodes: number[] = [];
  /** Where those nodes' keys are built: one run's. */
  private laterKeys: LateKeys | undefined;

  constructor(readonly capacity = DEFAULT_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`LruOutputCache capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    this.storeLater();
    let size = this.current.size;
    for (const key of this.previous.keys()) if (!this.current.has(key)) size++;
    return size;
  }

  get(key: CacheKey): CacheEntry | undefined {
    this.storeLater();
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
    this.storeLater();
    // The key is the entry: one object per stored node, not a key and an entry beside it.
    const entry = key.unstored();
    entry.outputs = outputs;
    entry.ref = this.refs++;
    this.store(entry);
    return entry;
  }

  setLater(keys: LateKeys, i: number): number {
    // One run's entries wait (that run holds its refs and outputs anyway): a cache whose lookups never come (no run's
    // first node is cacheable, so nothing downstream is looked up) must not keep every run's refs and outputs alive.
    if (this.laterKeys !== keys) {
      this.storeLater();
      this.laterKeys = keys;
    }
    this.laterNodes.push(i);
    return this.refs++;
  }

  /** Builds the keys of the entries stored with `setLater` and stores them, in the order they came. */
  private storeLater(): void {
    const keys = this.laterKeys;
    if (keys === undefined) return;
    const nodes = this.laterNodes;
    this.laterKeys = undefined;
    this.laterNodes = [];
    let ref = this.refs - nodes.length;
    for (const i of nodes) {
      const entry = keys.keyOf(i);
      entry.outputs = keys.outputsOf(i);
      entry.ref = ref++;
      this.store(entry);
    }
  }

  private store(entry: CacheKey): void {
    this.current.set(entry.hash, entry);
    if (this.current.size >= this.capacity) {
      this.previous = this.current;
      this.current = new Map();
    }
  }

  clear(): void {
    this.laterKeys = undefined;
    this.laterNodes = [];
    this.current.clear();
    this.previous.clear();
  }
}
