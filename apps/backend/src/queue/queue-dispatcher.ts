import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { RunRecord } from "../events/run-repository.ts";
import type { DispatchCancel, RunDispatcher } from "../runs/run-dispatcher.ts";
import { randomUUID } from "node:crypto";
import { RUN_BATCH_JOB, RUN_JOB, RUN_QUEUE, type RunBatchJobData, type RunJobData, type RunQueueJobData } from "./queue-names.ts";
import { requestCancel } from "./cancel-signal.ts";
import { sealJob, type QueueSeal, type SealedJob } from "./queue-seal.ts";
import { traceEnqueue } from "./run-trace.ts";
import type { Tracing } from "@weft/agent-runtime";
import type { Workflow } from "@weft/types";

/** Failed jobs kept in Redis for inspection (the run record says why anyway). */
const KEEP_FAILED_JOBS = 1000;
/**
 * How long a read of the line's length is reused. A burst of run requests then costs Redis one count
 * per interval instead of one per request; the QUEUE_FULL limit may be passed by what arrives within it.
 */
const COUNT_REUSE_MS = 250;

/**
 * The queue mode, API side: a recorded run becomes a BullMQ job (its id the run's), which a
 * `weft worker` process takes and executes. This process executes nothing; it only closes runs that
 * were cancelled before any worker took them.
 */
export class QueueRunDispatcher implements RunDispatcher {
  readonly mode = "queue";
  readonly ownsUnfinishedRuns = false;
  private counted: { waiting: number; at: number } | undefined;

  constructor(
    private readonly queue: Queue<SealedJob<RunQueueJobData>>,
    /** For cancel requests (a normal connection, not the subscriber). */
    private readonly redis: Redis,
    /** Seals each job and cancel: a worker runs only what an API of this installation queued. */
    private readonly seal: QueueSeal,
    private readonly maxWaiting: number,
    private readonly tracing?: Tracing,
  ) {}

  async isFull(): Promise<{ full: boolean; limit: number }> {
    return { full: (await this.waiting()) >= this.maxWaiting, limit: this.maxWaiting };
  }

  async dispatch(run: RunRecord, workflow: Workflow): Promise<number> {
    // Only the id (and the trace, when tracing) travels: the worker reads the run and its recorded workflow from the database.
    const sent = this.tracing ? traceEnqueue(this.tracing, run.id, workflow, (traceparent) => this.add(run.id, traceparent)) : this.add(run.id, undefined);
    await sent;
    // Its place in line as of the last count (approximate: workers take jobs meanwhile), counted in for the next request.
    const counted = (this.counted ??= { waiting: 0, at: Date.now() });
    counted.waiting++;
    return counted.waiting;
  }

  private async add(runId: string, traceparent: string | undefined): Promise<void> {
    const data: RunJobData = traceparent ? { runId, traceparent } : { runId };
    await this.queue.add(RUN_JOB, sealJob(this.seal, RUN_QUEUE, runId, data), { jobId: runId, attempts: 1, removeOnComplete: true, removeOnFail: { count: KEEP_FAILED_JOBS } });
  }

  async dispatchBatch(runs: ReadonlyArray<{ record: RunRecord }>): Promise<void> {
    // Ids only, as for one run; not traced per run (a batch is one job: its runs start their own traces on the worker).
    const jobId = `batch-${randomUUID()}`;
    const data: RunBatchJobData = { runIds: runs.map((r) => r.record.id) };
    await this.queue.add(RUN_BATCH_JOB, sealJob(this.seal, RUN_QUEUE, jobId, data), { jobId, attempts: 1, removeOnComplete: true, removeOnFail: { count: KEEP_FAILED_JOBS } });
  }

  private async waiting(): Promise<number> {
    const now = Date.now();
    if (this.counted && now - this.counted.at < COUNT_REUSE_MS) return this.counted.waiting;
    const waiting = await this.queue.getWaitingCount();
    this.counted = { waiting, at: now };
    return waiting;
  }

  position(): number | undefined {
    return undefined;
  }

  async cancel(runId: string): Promise<DispatchCancel> {
    // No job of its own: a batch's run (its worker reads the cancel key as it comes to it, or gets the message while
    // running it), or one that already ended (the caller reads its record again). Signalled either way.
    if (!(await this.queue.getJob(runId))) {
      await requestCancel(this.redis, this.seal, runId);
      return "signalled";
    }
    // BullMQ removes a job only while no worker holds its lock: it never started, or its worker died.
    if ((await this.queue.remove(runId)) === 1) return "removed";
    await requestCancel(this.redis, this.seal, runId);
    return "signalled";
  }

  async shutdown(): Promise<void> {
    // Runs belong to the workers and the queue: nothing here to finish or hand back.
  }
}
