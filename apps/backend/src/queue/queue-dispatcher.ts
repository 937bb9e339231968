import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { RunRecord } from "../storage/run-repository.ts";
import type { DispatchCancel, RunDispatcher } from "../runs/run-dispatcher.ts";
import { RUN_JOB, type RunJobData } from "./queue-names.ts";
import { requestCancel } from "./cancel-signal.ts";

/** Failed jobs kept in Redis for inspection (the run record says why anyway). */
const KEEP_FAILED_JOBS = 1000;

/**
 * The queue mode, API side: a recorded run becomes a BullMQ job (its id the run's), which a
 * `weft worker` process takes and executes. This process executes nothing; it only closes runs that
 * were cancelled before any worker took them.
 */
export class QueueRunDispatcher implements RunDispatcher {
  readonly mode = "queue";
  readonly ownsUnfinishedRuns = false;

  constructor(
    private readonly queue: Queue<RunJobData>,
    /** For cancel requests (a normal connection, not the subscriber). */
    private readonly redis: Redis,
    private readonly maxWaiting: number,
  ) {}

  async isFull(): Promise<{ full: boolean; limit: number }> {
    return { full: (await this.queue.getWaitingCount()) >= this.maxWaiting, limit: this.maxWaiting };
  }

  async dispatch(run: RunRecord): Promise<number> {
    // Only the id travels: the worker reads the run and the workflow it was recorded with from the database.
    await this.queue.add(RUN_JOB, { runId: run.id }, { jobId: run.id, attempts: 1, removeOnComplete: true, removeOnFail: { count: KEEP_FAILED_JOBS } });
    return await this.queue.getWaitingCount();
  }

  position(): number | undefined {
    return undefined;
  }

  async cancel(runId: string): Promise<DispatchCancel> {
    // Gone from the queue: it finished (its record says how) or was never queued here.
    if (!(await this.queue.getJob(runId))) return "unknown";
    // BullMQ removes a job only while no worker holds its lock: it never started, or its worker died.
    if ((await this.queue.remove(runId)) === 1) return "removed";
    await requestCancel(this.redis, runId);
    return "signalled";
  }

  async shutdown(): Promise<void> {
    // Runs belong to the workers and the queue: nothing here to finish or hand back.
  }
}
