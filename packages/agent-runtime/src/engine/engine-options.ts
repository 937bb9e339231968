import type { CacheKey } from "./cache-key.ts";
import type { Logger, NodeCatalog, NodeServices, NodeValues, RunEventSink, WorkflowSource } from "@weft/types";

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

export interface EngineOptions {
  /** Node types the engine can run, e.g. `createBuiltinRegistry()`. */
  catalog: NodeCatalog;
  /** Saved workflows, for `core:skill` (`ctx.runSubworkflow`). */
  workflows?: WorkflowSource;
  /** Default services handed to every node. */
  services?: NodeServices;
  /** Default: an in-memory LRU shared by this engine's runs. */
  cache?: OutputCache;
  /** How many asynchronous nodes may run at once in one graph (default 8). */
  concurrency?: number;
  logger?: Logger;
  /**
   * After a cancellation (or at the end of a run that abandoned timed-out attempts), how long to wait
   * for nodes that were told to stop before giving up on them (default 2000 ms).
   */
  cancelGraceMs?: number;
}

export interface RunOptions {
  /** Default: a new uuid. */
  runId?: string;
  /** Interface inputs, by name. */
  inputs?: Record<string, unknown>;
  signal?: AbortSignal;
  /** Receives every RunEvent, in order, `seq` from 0. */
  onEvent?: RunEventSink;
  /** Merged over `EngineOptions.services`. */
  services?: NodeServices;
  /** Node id: force it and everything downstream of it to run again; the rest may come from the cache. */
  rerunFrom?: string;
}
