import type { NodeSpec } from "./node-spec.ts";
import type { Logger } from "./logger.ts";
import type { NodeServices } from "./services.ts";
import type { RunResult } from "./run.ts";

export type NodeValues = Record<string, unknown>;

export interface SubworkflowOptions {
  signal?: AbortSignal;
  /** `workflowId` names a node type: it runs as a one-node workflow whose literal inputs are `inputs` (`core:map` over a node type). */
  asNodeType?: boolean;
  /** Names the call: its node ids become `<caller>[<label>]/…` (`core:map` labels each item's call with its index). */
  label?: string;
}

/** What a node sees while it runs. */
export interface NodeContext {
  runId: string;
  /** Fully qualified node id (skill instances prefix it with `<skillNodeId>/`). */
  nodeId: string;
  invocationId: string;
  config: Record<string, unknown>;
  /** Aborted when the run is cancelled or the node times out; pass it to every I/O call. */
  signal: AbortSignal;
  log: Logger;
  services: NodeServices;
  /** Runs a saved workflow as a subgraph of this run (used by `core:skill`). */
  runSubworkflow(workflowId: string, inputs: NodeValues, options?: SubworkflowOptions): Promise<RunResult>;
}

/**
 * A node's implementation. It returns its outputs, or is an async generator that yields chunks
 * (`node.chunk` events) and returns its outputs. Omitting an output port means that branch is not
 * taken: what depends on it is skipped.
 */
export type NodeExecute = (inputs: NodeValues, ctx: NodeContext) => NodeValues | Promise<NodeValues> | AsyncGenerator<unknown, NodeValues, void>;

export interface NodeDefinition {
  spec: NodeSpec;
  execute: NodeExecute;
}

/** Where the engine finds node definitions. */
export interface NodeCatalog {
  get(type: string): NodeDefinition | undefined;
  list(): NodeSpec[];
  /** Known types nearest to an unknown one, for error hints. */
  suggest(type: string): string[];
}

/** Where the engine finds saved workflows (for skills). */
export interface WorkflowSource {
  getWorkflow(id: string): Promise<import("./workflow.ts").Workflow | undefined>;
}
