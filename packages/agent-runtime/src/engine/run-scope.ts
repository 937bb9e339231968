import type { Logger, NodeServices, NodeValues, RunResult } from "@weft/types";
import type { OutputCache } from "./cache/index.ts";
import type { RunEventEmitter } from "./run-event-emitter.ts";
import { RunClock } from "./run-clock.ts";
import type { Tracing } from "../tracing/index.ts";

/** A request from a node (`ctx.runSubworkflow`) to run a saved workflow inside the current run. */
export interface SubworkflowRequest {
  workflowId: string;
  /** `workflowId` is a node type, run as a one-node workflow with `inputs` as its literal inputs. */
  asNodeType?: boolean;
  inputs: NodeValues;
  signal: AbortSignal;
  /** Prefix of the inner node ids: `<callerNodeId>/`. */
  prefix: string;
  /** Workflow ids from the top-level run down to the caller (for recursion detection). */
  stack: readonly string[];
  /** Where the inner observations also go (the caller's graph and its ancestors). */
  record: (observation: import("@weft/types").Observation) => void;
}

export type SubworkflowRunner = (scope: RunScope, request: SubworkflowRequest) => Promise<RunResult>;

/** What a top-level run and all the skill runs inside it share. */
export class RunScope {
  readonly clock = new RunClock();

  constructor(
    readonly runId: string,
    readonly emitter: RunEventEmitter,
    readonly cache: OutputCache,
    readonly services: NodeServices,
    readonly logger: Logger,
    readonly concurrency: number,
    readonly graceMs: number,
    /** Outputs (or chunks) of one node past this many bytes fail it (`output-size.ts`). */
    readonly maxOutputBytes: number,
    readonly runSubworkflow: SubworkflowRunner,
    /** Set when the run is traced (its graphs make spans); undefined costs nothing. */
    readonly tracing: Tracing | undefined,
  ) {}
}
