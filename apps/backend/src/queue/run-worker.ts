import { UnrecoverableError, type Job, type Worker } from "bullmq";
import type { Redis } from "ioredis";
import { freezeWorkflow } from "@weft/agent-runtime";
import { engineError, messageOf, type Logger, type NodeError, type Workflow } from "@weft/types";
import type { Storage } from "../app-storage.ts";
import type { RunExecutor } from "../runs/run-executor.ts";
import type { RunRecord, RunWithWorkflow } from "../events/run-repository.ts";
import { queueWorker, RUN_BATCH_JOB, RUN_JOB, RUN_QUEUE, RunBatchJobDataSchema, RunJobDataSchema, type QueueWorkerSlots, type RunQueueJobData } from "./queue-names.ts";
import { cancelRequested, cancelsRequested, listenForCancels } from "./cancel-signal.ts";
import { openJob, RejectedJobError, type QueueSeal, type SealedJob } from "./queue-seal.ts";
import { jobTraceParent } from "./run-trace.ts";

const WORKER_LOST: NodeError = engineError("INTERRUPTED", "The worker running this run stopped before it finished (killed or lost); re-run it (POST /api/runs/:id/rerun).");
const NO_WORKFLOW: NodeError = engineError("INTERRUPTED", "The run's workflow was not stored with it, so no worker can execute it.");

/** `concurrency`: runs executed at once by this process. */
export type RunWorkerOptions = QueueWorkerSlots;

export interface RunWorkerDeps {
  storage: Storage;
  executor: RunExecutor;
  /** For reading cancel requests (a normal connection). */
  redis: Redis;
  /** A connection of its own for the cancel channel. */
  subscriber: Redis;
  /** Checks each job and cancel request: only what an API of this installation sealed is run or obeyed. */
  seal: QueueSeal;
  /** Told of each run about to execute here, its record just read (the usage records' facts of it, read no more). */
  knowRun?: (record: RunRecord) => void;
  /** Resolves once settings saved elsewhere before this job was queued apply here. */
  settingsApplied?: () => Promise<void>;
  log: Logger;
}

/**
 * Takes run jobs off the BullMQ queue and executes them with this process's engine. Each job names a
 * run recorded by an API process; the run's events go through this process's journal into the shared
 * database, announced on Redis for every API's subscribers.
 *
 * A job BullMQ hands over a second time was stalled: the worker that held it died (SIGKILL, lost
 * machine). Such a run is already `running` in storage, with part of its events; it is ended
 * `interrupted` rather than executed again, so nothing it did (tool calls, messages) is repeated unasked.
 */
export class RunWorker {
  private readonly held = new Map<string, AbortController>();
  /** Batch jobs being worked through here, by job id: the run executing now, and whether the job's lock was lost. */
  private readonly batches = new Map<string, Batch>();
  private worker: Worker<SealedJob<RunQueueJobData>> | undefined;
  private stopListening: (() => Promise<void>) | undefined;

  constructor(
    private readonly options: RunWorkerOptions,
    private readonly deps: RunWorkerDeps,
  ) {}

  /** Runs being executed here now. */
  get activeCount(): number {
    return this.held.size;
  }

  async start(): Promise<void> {
    this.stopListening = await listenForCancels(this.deps.subscriber, this.deps.seal, (runId) => this.cancel(runId));
    this.worker = queueWorker<SealedJob<RunQueueJobData>>(
      RUN_QUEUE,
      (job) => this.process(job),
      // Handed over again after a stall, the job only closes the run (see above). Past this count BullMQ
      // fails the job and nobody would close the run: 2 lets the closing worker die too, once.
      { ...this.options, maxStalledCount: 2, what: "queue worker" },
      this.deps.log,
    );
    // The lock expired while this process still ran the job (its event loop stalled): another worker may
    // have taken it over and closed the run. Stop it here without writing under seqs that worker uses.
    // A batch's job id is not a run's: its run executing now is stopped, and none of its later runs starts here.
    this.worker.on("lockRenewalFailed", (jobIds) => {
      for (const jobId of jobIds) {
        const batch = this.batches.get(jobId);
        if (batch === undefined) {
          this.lose(jobId);
          continue;
        }
        batch.lost = true;
        if (batch.current !== undefined) this.lose(batch.current);
      }
    });
    // A refused job was logged as it was refused.
    this.worker.on("failed", (job, error) => {
      if (!(error instanceof RejectedJobError)) this.deps.log.warn("run job failed", { runId: job?.id, error: messageOf(error) });
    });
    await this.worker.waitUntilReady();
  }

  /**
   * Stops taking jobs and lets the running ones finish for `graceMs`; then stops them (they end
   * `interrupted`, their jobs completed) so the process can exit. Nothing is left `running`.
   */
  async stop(graceMs: number): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    const closed = worker.close();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = await Promise.race([closed.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), graceMs)))]);
    clearTimeout(timer);
    if (timedOut) {
      this.deps.executor.beginShutdown();
      for (const controller of this.held.values()) controller.abort(new Error("the worker is shutting down"));
      await closed;
    }
    await this.stopListening?.();
  }

  private lose(runId: string): void {
    const controller = this.held.get(runId);
    if (!controller) return;
    this.deps.log.warn("lost the lock of a running run; stopping it here", { runId });
    this.deps.executor.markLost(runId);
    controller.abort(new Error("the worker lost this run's lock"));
  }

  private cancel(runId: string): void {
    // A batch's run not started yet: noted, so it never starts (its key was read once, as the batch began).
    for (const batch of this.batches.values()) if (batch.waiting.has(runId)) batch.cancelled.add(runId);
    const controller = this.held.get(runId);
    if (!controller) return;
    this.deps.executor.markCancelRequested(runId);
    controller.abort(new Error("cancelled by request"));
  }

  private async process(job: Job<SealedJob<RunQueueJobData>>): Promise<void> {
    const { seal } = this.deps;
    switch (job.name) {
      case RUN_JOB: {
        // No age limit: a job may wait long for a worker, and its run's stored status refuses a replay (only a `queued` run is executed).
        const { runId, traceparent } = openJob(seal, RUN_QUEUE, job, RunJobDataSchema, "a run job");
        this.deps.log.info("run taken", { runId, attempt: job.attemptsStarted });
        await this.runOne(runId, traceparent);
        return;
      }
      case RUN_BATCH_JOB: {
        // One after another; each run's stored status decides, so a batch handed over after a stall runs only what never started.
        const { runIds } = openJob(seal, RUN_QUEUE, job, RunBatchJobDataSchema, "a run batch job");
        const batchId = job.id ?? "";
        const batch: Batch = { lost: false, workflows: new BatchWorkflows(), waiting: new Set(runIds), cancelled: new Set() };
        // Listening (`cancel` above) before the keys are read: a request made later arrives as a message.
        this.batches.set(batchId, batch);
        try {
          // Its runs and their workflows in one query: only this batch's job starts them, and a cancel comes as a key or a message.
          const [cancelled, stored] = await Promise.all([cancelsRequested(this.deps.redis, seal, runIds), this.deps.storage.runs.getWithWorkflows(runIds)]);
          for (const runId of cancelled) batch.cancelled.add(runId);
          for (const runId of runIds) {
            // Its lock lost, the batch is another worker's now (BullMQ hands a stalled job over whole): the runs left are its.
            if (batch.lost) {
              this.deps.log.warn("lost the lock of a run batch; leaving its remaining runs to the worker that took it", { batch: batchId, runId });
              break;
            }
            batch.current = runId;
            await this.runOne(runId, undefined, { id: batchId, ...batch, stored: stored.get(runId) });
            batch.waiting.delete(runId);
          }
        } finally {
          this.batches.delete(batchId);
        }
        // Its runs' ends went with the journal's flushes, shared with the other runs here (not a commit each): all stored
        // before the job completes, so a worker dying from here on leaves no ended run unstored and no job to close it.
        await this.deps.executor.stored();
        return;
      }
      default:
        // Sealed by this installation, yet no name this worker knows (another version's API): failed, never retried.
        throw new UnrecoverableError(`a job named "${job.name}" on the run queue is not one this worker runs`);
    }
  }

  /** Executes one recorded run if it is still `queued`; closes it if a dead worker left it `running`; else nothing. */
  private async runOne(runId: string, traceparent: string | undefined, batch?: BatchRun): Promise<void> {
    const { storage, executor, log, seal } = this.deps;
    // Held before the cancel key is read: a request that comes later arrives as a message.
    const controller = new AbortController();
    this.held.set(runId, controller);
    try {
      // One round trip's time for all three: this is the queue mode's latency per run. A batch's runs and cancels are known already.
      const [record, cancelKeySet, workflow] = await Promise.all([
        batch === undefined ? storage.runs.get(runId) : batch.stored?.record,
        batch === undefined ? cancelRequested(this.deps.redis, seal, runId) : false,
        batch === undefined ? storage.runs.getWorkflow(runId) : batch.stored?.workflow,
        this.deps.settingsApplied?.(),
      ]);
      if (!record) {
        log.warn("run job for a run that does not exist", { runId });
        return;
      }
      switch (record.status) {
        case "queued":
          break;
        case "running":
          await executor.finishUnstarted(runId, "interrupted", "interrupted: the worker running it stopped", WORKER_LOST, record.startedAt);
          return;
        case "completed":
        case "failed":
        case "cancelled":
        case "interrupted":
        case "budget_exceeded":
        case "waiting":
          // Ended, or paused (its resume makes it `queued` before a job is added): nothing to execute.
          return;
        default: {
          const never: never = record.status;
          return never;
        }
      }
      // A batch's run is logged as taken only when it executes here: a batch handed over again skips what ended.
      if (batch !== undefined) log.info("run taken", { runId, batch: batch.id });
      if (controller.signal.aborted || cancelKeySet || batch?.cancelled.has(runId)) {
        await executor.finishUnstarted(runId, "cancelled", "cancelled before it started");
        return;
      }
      if (!workflow) {
        await executor.finishUnstarted(runId, "interrupted", "interrupted: its workflow was not stored", NO_WORKFLOW);
        return;
      }
      // Never started: no event of it is stored, so its numbering starts at 0 without reading the highest stored seq.
      if (record.startedAt === undefined) executor.prepareNew(runId);
      this.deps.knowRun?.(record);
      if (batch === undefined) await executor.execute(record, workflow, controller.signal, undefined, jobTraceParent(traceparent));
      else await executor.execute(record, batch.workflows.shared(workflow), controller.signal, undefined, jobTraceParent(traceparent), "later");
    } finally {
      this.held.delete(runId);
    }
  }
}

/** One of a batch's runs, as `runOne` gets it: the batch's id, workflows and cancels, and the run as read when the batch began. */
interface BatchRun {
  id: string;
  workflows: BatchWorkflows;
  cancelled: ReadonlySet<string>;
  stored: RunWithWorkflow | undefined;
}

/** A batch job being worked through: the run executing now, whether the job's lock was lost, the workflows its runs ran. */
interface Batch {
  current?: string;
  lost: boolean;
  workflows: BatchWorkflows;
  /** Its runs not yet executed, and those of them whose cancel was asked (key read at the batch's start, or message since). */
  waiting: Set<string>;
  cancelled: Set<string>;
}

/**
 * A batch's runs (an eval side's cases) all ran one workflow, each read back from its own snapshot: one equal to the
 * last is given as the last's frozen copy, whose graph the engine compiles once (`freezeWorkflow`), not once per run.
 */
class BatchWorkflows {
  private last: { json: string; source: Workflow; workflow: Workflow } | undefined;

  shared(workflow: Workflow): Workflow {
    // Runs read together that share a snapshot text share its object (`getWithWorkflows`).
    if (this.last?.source === workflow) return this.last.workflow;
    const json = JSON.stringify(workflow);
    if (this.last?.json !== json) this.last = { json, source: workflow, workflow: freezeWorkflow(workflow) };
    else this.last.source = workflow;
    return this.last.workflow;
  }
}
