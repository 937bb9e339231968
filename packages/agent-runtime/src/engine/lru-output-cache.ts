import type { NodeValues } from "@weft/types";
import type { OutputCache } from "./engine-options.ts";

/** The default OutputCache: keeps the `capacity` most recently used entries in memory. */
export class LruOutputCache implements OutputCache {
  private readonly entries = new Map<string, NodeValues>();

  constructor(readonly capacity = 10_000) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`LruOutputCache capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): NodeValues | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Re-inserting moves the key to the end of Map's insertion order: the most recently used.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, outputs: NodeValues): void {
    if (this.entries.has(key)) this.entries.delete(key);
    else if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, outputs);
  }

  clear(): void {
    this.entries.clear();
  }
}
