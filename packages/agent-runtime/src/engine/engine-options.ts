import type { OutputCache } from "./cache/index.ts";
import type { RecordedNode } from "./recorded.ts";
import type { Context } from "@opentelemetry/api";
import type { Tracing } from "../tracing/index.ts";
import type { Logger, NodeCatalog, NodeServices, RunEventSink, WorkflowSource } from "@weft/types";

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
  /**
   * The most a node may return (its outputs, and its streamed chunks together), in bytes as JSON, about;
   * more fails the node with OUTPUT_TOO_LARGE (default 8 MB, `DEFAULT_MAX_OUTPUT_BYTES`). Every observation
   * is stored and sent to every watcher: one node's 100 MB would be the database's and every client's.
   */
  maxOutputBytes?: number;
  /** Traces each run (a span per run, skill and node invocation); absent, nothing is traced and nothing is paid. */
  tracing?: Tracing;
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
  /**
   * By top-level node id: nodes that end as recorded in an earlier run instead of running (a fork of that run).
   * A recorded node takes its record whatever its inputs; ids the workflow does not have are ignored.
   */
  recorded?: ReadonlyMap<string, RecordedNode>;
  /**
   * The caller can keep a paused run and resume it (the server's runs): a node returning `suspendRun` then ends the
   * run `waiting`. Without it such a node fails (an agent's tool call or a local run has nobody to resume it).
   */
  mayPause?: boolean;
  /** The trace the run's span joins (e.g. a queued run's, from its job); default the active context. Only read when tracing. */
  traceParent?: Context;
}
