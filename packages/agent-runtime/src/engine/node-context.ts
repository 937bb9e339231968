import type { Logger, NodeContext, NodeServices, NodeValues, RunResult, SubworkflowOptions } from "@weft/types";
import type { RunScope } from "./run-scope.ts";

/** What a context needs from the graph run that owns the node. */
export interface ContextOwner {
  readonly scope: RunScope;
  runSubworkflow(index: number, callerId: string, workflowId: string, inputs: NodeValues, signal: AbortSignal, options?: SubworkflowOptions): Promise<RunResult>;
}

/**
 * The NodeContext handed to one attempt of a node. Built for every node, so the costly parts (the
 * child logger, the subworkflow closure) are made only when a node asks for them.
 */
export class EngineNodeContext implements NodeContext {
  readonly runId: string;
  private childLog: Logger | undefined;

  constructor(
    private readonly owner: ContextOwner,
    private readonly index: number,
    readonly nodeId: string,
    readonly invocationId: string,
    readonly config: Record<string, unknown>,
    readonly signal: AbortSignal,
  ) {
    this.runId = owner.scope.runId;
  }

  get log(): Logger {
    return (this.childLog ??= this.owner.scope.logger.child(this.nodeId));
  }

  get services(): NodeServices {
    return this.owner.scope.services;
  }

  /**
   * Runs a saved workflow inside this run, its node ids prefixed with this node's id. Rejects with a
   * NodeFailure (SKILL_NOT_FOUND, SKILL_RECURSION, SKILL_LOAD_FAILED, INVALID_WORKFLOW, INVALID_INPUT)
   * when it cannot start; otherwise resolves with the inner run's result, whatever its status.
   */
  get runSubworkflow(): (workflowId: string, inputs: NodeValues, options?: SubworkflowOptions) => Promise<RunResult> {
    return (workflowId, inputs, options) => this.owner.runSubworkflow(this.index, this.nodeId, workflowId, inputs, options?.signal ?? this.signal, options);
  }
}
