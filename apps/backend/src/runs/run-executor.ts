import { ROOT_CONTEXT, type Context } from "@opentelemetry/api";
import type { ExecutionEngine } from "@weft/agent-runtime";
import type { RecordedNode } from "@weft/agent-runtime";
import type { Logger, NodeError, RunResult, Workflow } from "@weft/types";
import type { ObservationRepository } from "../events/observation-repository.ts";
import { NOT_RECORDED, recordedNodes } from "./run-fork.ts";
import type { RunRecord } from "../events/run-repository.ts";
import type { EventJournal } from "../events/event-journal.ts";
import type { RunWaits } from "./run-waits.ts";
import { ObservationTracker } from "../events/observation-tracker.ts";
import { engineError, messageOf } from "@weft/types";

/** When `RunExecutor.execute` resolves: once the run's end is stored, or as soon as it is appended (stored with the journal's next flush). */
export type RunEnd = "stored" | "later";

export const INTERRUPTED: NodeError = engineError("INTERRUPTED", "The server stopped while this run was executing; re-run it (POST /api/runs/:id/rerun).");

export interface RunExecutorDeps {
  journal: EventJournal;
  /** The engine a run of this workflow uses (its output cache is the workflow's, in this process). */
  engineFor(workflowId: string): ExecutionEngine;
  /** A forked run's observations, read whole: what a fork takes from it comes from storage, not from this process. */
  observations: Pick<ObservationRepository, "listByRun">;
  /** Where paused runs' requests and decisions are kept; without it a run whose node pauses fails. */
  waits?: RunWaits;
  log: Logger;
}

/**
 * Executes recorded runs with the engine and journals their events, observations and status as they
 * go. The same code runs a run in the API process (the embedded mode) and in a queue worker: whoever
 * executes a run is the only writer of its event stream while it runs.
 */
export class RunExecutor {
  private stopping = false;
  /** Runs whose cancellation a client asked for (as opposed to a shutdown stopping them). */
  private readonly cancelRequested = new Set<string>();
  /** Runs this process no longer owns (a queue worker lost the job's lock): nothing more of theirs is journaled. */
  private readonly lost = new Set<string>();
  /** Told of each run that ended `failed` here, once its record is stored (its error workflow starts from it). */
  private failedListener: ((runId: string) => Promise<unknown>) | undefined;

  constructor(private readonly deps: RunExecutorDeps) {}

  /** Set once at composition: the error-workflow launcher (runs/error-workflow.ts) needs the service built on this executor. */
  onRunFailed(listener: (runId: string) => Promise<unknown>): void {
    this.failedListener = listener;
  }

  /** From now on a run stopped by its signal ends `interrupted` unless a client asked to cancel it. */
  beginShutdown(): void {
    this.stopping = true;
  }

  /** Call before aborting a run's signal for a client: it then ends `cancelled`, not `interrupted`. */
  markCancelRequested(runId: string): void {
    this.cancelRequested.add(runId);
  }

  /**
   * Call before aborting a run this process no longer owns: another process may be closing it and
   * numbering its events already, so from now on its events, observations and status are dropped here
   * rather than written under the same seqs.
   */
  markLost(runId: string): void {
    this.lost.add(runId);
  }

  /**
   * A run just recorded, about to be executed by this process only (the embedded dispatcher; a queue worker taking a run
   * that never started): its event stream is new,
   * so its numbering starts at 0 without reading the highest stored seq (a read per run on a webhook's hot path).
   */
  prepareNew(runId: string): void {
    this.deps.journal.openNew(runId);
  }

  /** Ends a run that never reached the engine (or whose process died) with a closing event. */
  async finishUnstarted(runId: string, status: "cancelled" | "interrupted", reason: string, error?: NodeError, startedAt?: number): Promise<void> {
    const { journal } = this.deps;
    const now = Date.now();
    await journal.open(runId);
    journal.append(runId, { type: "run.cancelled", runId, reason, durationMs: startedAt !== undefined ? now - startedAt : 0 });
    journal.updateRun({ id: runId, status, finishedAt: now, ...(error ? { error } : {}) });
    await journal.flush();
    journal.close(runId);
  }

  /**
   * Runs the workflow to its end (or until `signal` aborts) and stores the outcome; never throws for a failed run.
   * A fork's `recorded` nodes, when the process that planned it gives them, are not read from storage again.
   * When the process traces, the run's span is a child of `traceParent` (who dispatched it; a queued run's job
   * carries it); without one it starts its own trace, never one of whatever ran before it here.
   * `end`: "stored" (default) resolves once the run's end is stored; "later" leaves an ended run's last writes to the
   * journal's next flush (a queue batch's run: its batch awaits `stored()` before its job completes), so a batch's runs
   * share commits instead of one each. A failed run is stored first either way (its error workflow reads it).
   */
  async execute(record: RunRecord, workflow: Workflow, signal: AbortSignal, recorded?: Map<string, RecordedNode>, traceParent: Context = ROOT_CONTEXT, end: RunEnd = "stored"): Promise<void> {
    const { journal } = this.deps;
    const runId = record.id;
    await journal.open(runId);
    // A resumed run (one that executed before, and paused) keeps its first start.
    journal.updateRun({ id: runId, status: "running", ...(record.startedAt === undefined ? { startedAt: Date.now() } : {}) });
    const tracker = new ObservationTracker(runId, (ord, observation) => journal.addObservation(ord, observation));
    let result: RunResult;
    try {
      const replayed = recorded ?? (await this.recordedFor(record, workflow));
      if (!(replayed instanceof Map)) {
        await this.failBeforeStart(runId, replayed);
        return;
      }
      result = await this.deps.engineFor(workflow.id).run(workflow, {
        runId,
        inputs: record.inputs,
        signal,
        traceParent,
        ...(record.rerunFrom !== undefined ? { rerunFrom: record.rerunFrom } : {}),
        ...(replayed.size > 0 ? { recorded: replayed } : {}),
        ...(this.deps.waits !== undefined ? { mayPause: true } : {}),
        onEvent: (event) => {
          if (!this.lost.has(runId)) tracker.onEvent(journal.append(runId, event));
        },
      });
    } catch (thrown) {
      if (this.forget(runId)) return;
      // The engine reports failures in its result; reaching this is a bug, recorded rather than lost.
      const error: NodeError = { code: "INTERNAL", message: `The engine failed unexpectedly: ${messageOf(thrown)}` };
      this.deps.log.error("engine threw", { runId, error: error.message });
      await this.failBeforeStart(runId, error);
      return;
    }
    if (this.forget(runId)) return;
    const interrupted = result.status === "cancelled" && this.stopping && !this.cancelRequested.has(runId);
    this.cancelRequested.delete(runId);
    if (result.status === "waiting") {
      await this.pause(runId, workflow.id, result);
      return;
    }
    journal.replaceObservations(runId, result.observations);
    const error = interrupted ? INTERRUPTED : result.error;
    const status = interrupted ? "interrupted" : overBudget(result) ? "budget_exceeded" : result.status;
    journal.updateRun({
      id: runId,
      status,
      outputs: result.outputs,
      finishedAt: Date.now(),
      durationMs: result.durationMs,
      ...(error ? { error } : {}),
    });
    journal.close(runId);
    if (end === "stored" || status === "failed") await journal.flush();
    if (status === "failed") await this.failedListener?.(runId);
  }

  /** Resolves once everything the runs executed here appended so far is stored (see `execute`'s `end`). */
  stored(): Promise<void> {
    return this.deps.journal.flush();
  }

  /**
   * Ends an execution whose nodes paused: their requests are stored first, then the run says `waiting` (a process
   * dying between the two leaves a `running` run, ended `interrupted` at the next start, never a waiting run nobody
   * can answer). Nothing of the run stays in this process.
   */
  private async pause(runId: string, workflowId: string, result: RunResult): Promise<void> {
    const { journal, waits } = this.deps;
    const now = Date.now();
    try {
      if (waits === undefined) throw new Error("this process keeps no approvals");
      await waits.record(runId, workflowId, result.waiting ?? [], now);
    } catch (thrown) {
      this.deps.log.error("a paused run's requests could not be stored", { runId, error: messageOf(thrown) });
      journal.replaceObservations(runId, result.observations);
      await this.failBeforeStart(runId, { code: "INTERNAL", message: `The run paused for a decision, but its request could not be stored: ${messageOf(thrown)}` });
      return;
    }
    journal.replaceObservations(runId, result.observations);
    journal.updateRun({ id: runId, status: "waiting", durationMs: result.durationMs });
    await journal.flush();
    journal.close(runId);
  }

  /**
   * The nodes that end as recorded instead of running: a fork's, read from the forked run's stored observations; a
   * resumed run's (one that executed before: it has a start), its own stored observations plus the decided pauses.
   */
  private async recordedFor(record: RunRecord, workflow: Workflow): Promise<Map<string, RecordedNode> | NodeError> {
    if (record.forkOf === undefined) return record.startedAt !== undefined && this.deps.waits !== undefined ? this.resumed(record.id, this.deps.waits) : new Map();
    const { runId, nodeId } = record.forkOf;
    const plan = recordedNodes(workflow, { at: nodeId, changes: record.forkChanges ?? {} }, runId, await this.deps.observations.listByRun(runId));
    // Checked when the fork was asked for; the forked run's records may have been purged since.
    return plan.ok ? plan.recorded : { code: NOT_RECORDED, message: plan.message, details: { runId, nodeId: plan.nodeId } };
  }

  /** What a resumed run takes from its earlier executions: every node that ended there, and the decided pauses. */
  private async resumed(runId: string, waits: RunWaits): Promise<Map<string, RecordedNode>> {
    const [observations, decided] = await Promise.all([this.deps.observations.listByRun(runId), waits.decided(runId)]);
    const recorded = new Map<string, RecordedNode>();
    for (const o of observations) {
      // Top-level nodes only (a skill's inner nodes are replayed with their caller); a failed node runs again.
      if (o.nodeId.includes("/")) continue;
      if (o.status === "completed") recorded.set(o.nodeId, { status: "completed", inputs: o.inputs, outputs: o.outputs });
      else if (o.status === "skipped") recorded.set(o.nodeId, { status: "skipped", reason: o.skipReason ?? "skipped in an earlier execution of this run" });
    }
    for (const [nodeId, node] of decided) recorded.set(nodeId, node);
    return recorded;
  }

  /** Ends a run that failed before its engine produced a result. */
  private async failBeforeStart(runId: string, error: NodeError): Promise<void> {
    const { journal } = this.deps;
    journal.append(runId, { type: "run.failed", runId, error, outputs: {}, durationMs: 0 });
    journal.updateRun({ id: runId, status: "failed", finishedAt: Date.now(), error });
    await journal.flush();
    journal.close(runId);
    this.cancelRequested.delete(runId);
    await this.failedListener?.(runId);
  }

  /** True (and the run released here) when the run was lost: its end is another process's to record. */
  private forget(runId: string): boolean {
    if (!this.lost.delete(runId)) return false;
    this.cancelRequested.delete(runId);
    this.deps.journal.close(runId);
    this.deps.log.warn("run lost to another process; its end is not recorded here", { runId });
    return true;
  }
}

/** A run that failed because an LLM call was refused by a budget (in it, or in a skill it called) ends `budget_exceeded`. */
function overBudget(result: RunResult): boolean {
  if (result.status !== "failed") return false;
  return result.error?.code === "BUDGET_EXCEEDED" || result.observations.some((o) => o.status === "failed" && o.error?.code === "BUDGET_EXCEEDED");
}
