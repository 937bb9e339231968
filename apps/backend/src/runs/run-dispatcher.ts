import { context } from "@opentelemetry/api";
import type { RecordedNode } from "@weft/agent-runtime";
import type { Workflow } from "@weft/types";
import type { RunRecord } from "../events/run-repository.ts";
import type { RunQueue } from "./run-queue.ts";
import { INTERRUPTED, type RunExecutor } from "./run-executor.ts";

/** What `cancel` did: took a run that had not started out of line, told its executor to stop, or found neither. */
export type DispatchCancel = "removed" | "signalled" | "unknown";

/**
 * Where a recorded run goes to be executed. The embedded mode executes it in this process
 * (`LocalRunDispatcher`); the queue mode (`../queue/queue-dispatcher.ts`) hands it to a BullMQ worker.
 */
export interface RunDispatcher {
  readonly mode: "embedded" | "queue";
  /**
   * True when runs found `queued` or `running` in storage at start can only be left over from a dead
   * process of this one: the embedded mode. In the queue mode they may belong to live workers.
   */
  readonly ownsUnfinishedRuns: boolean;
  /** The line is full: callers refuse new work before recording it. `limit` names the limit in the refusal. */
  isFull(): Promise<{ full: boolean; limit: number }>;
  /**
   * Hands a recorded run over for execution; answers its place in line (0 = starting now, 1 = next). A fork's
   * `recorded` nodes, already read by the caller, serve an executor in this process; another process reads them.
   */
  dispatch(run: RunRecord, workflow: Workflow, recorded?: Map<string, RecordedNode>): Promise<number>;
  /** Hands several recorded runs over together, to be executed one after another (queue mode: one job for all). */
  dispatchBatch(runs: ReadonlyArray<{ record: RunRecord; workflow: Workflow }>): Promise<void>;
  /** Place in line (1 = next), when this process knows it without asking anyone; undefined otherwise. */
  position(runId: string): number | undefined;
  /** Stops a run: "removed" (never started; the caller ends it `cancelled`), "signalled" (its executor ends it), or "unknown". */
  cancel(runId: string): Promise<DispatchCancel>;
  /** Takes no more runs; waiting runs end `interrupted`, running ones get `graceMs` to finish before they are stopped. */
  shutdown(graceMs: number): Promise<void>;
}

/** The embedded mode: runs execute in this process, at most `queue.concurrency` at once. */
export class LocalRunDispatcher implements RunDispatcher {
  readonly mode = "embedded";
  readonly ownsUnfinishedRuns = true;

  constructor(
    readonly queue: RunQueue,
    private readonly executor: RunExecutor,
  ) {}

  async isFull(): Promise<{ full: boolean; limit: number }> {
    return { full: this.queue.isFull(), limit: this.queue.maxWaiting };
  }

  async dispatch(run: RunRecord, workflow: Workflow, recorded?: Map<string, RecordedNode>): Promise<number> {
    // The run's trace parent is who dispatched it (a traced caller), not whatever this queue ran before it.
    const parent = context.active();
    // Never started (a resumed run has): nothing of it is stored but its record, and only this process executes it.
    if (run.startedAt === undefined) this.executor.prepareNew(run.id);
    return this.queue.enqueue(run.id, (signal) => this.executor.execute(run, workflow, signal, recorded, parent));
  }

  async dispatchBatch(runs: ReadonlyArray<{ record: RunRecord; workflow: Workflow }>): Promise<void> {
    // This process's queue already bounds how many execute at once: each run is queued as it would be alone.
    for (const { record, workflow } of runs) await this.dispatch(record, workflow);
  }

  position(runId: string): number | undefined {
    return this.queue.position(runId);
  }

  async cancel(runId: string): Promise<DispatchCancel> {
    if (this.queue.removeWaiting(runId)) return "removed";
    if (!this.queue.isRunning(runId)) return "unknown";
    this.executor.markCancelRequested(runId);
    this.queue.abort(runId, "cancelled by request");
    return "signalled";
  }

  async shutdown(graceMs: number): Promise<void> {
    const { queue, executor } = this;
    executor.beginShutdown();
    for (const id of queue.takeWaiting()) await executor.finishUnstarted(id, "interrupted", "interrupted: the server shut down before this run started", INTERRUPTED);
    if (queue.runningCount === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([queue.idle(), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    for (const id of queue.runningIds()) queue.abort(id, "the server is shutting down");
    await queue.idle();
  }
}
