import type { RunQueue } from "../runs/run-queue.ts";

/**
 * What metrics and health read about the run queue, in either mode. The embedded mode answers from
 * the in-process `RunQueue`; the queue mode from BullMQ and Redis (see `queue/`), asked when scraped.
 */
export interface RunQueueProbe {
  readonly mode: "embedded" | "queue";
  /** Runs waiting for a slot or a worker. */
  waiting(): Promise<number>;
  /** Runs executing now. */
  active(): Promise<number>;
  /** Worker processes connected to the queue (0 in the embedded mode). */
  workers(): Promise<number>;
  /** Whether Redis answers; undefined in the embedded mode, which has none. */
  redisReachable(): Promise<boolean | undefined>;
  /** Queue mode: the jobs of the agents' and scenes' queues (a conversation loop, a running scene), waiting and held by workers. */
  otherJobs?(): Promise<QueueJobCounts[]>;
}

export interface QueueJobCounts {
  queue: string;
  waiting: number;
  active: number;
}

/** The embedded mode: this process's own queue; no Redis, no workers. */
export function embeddedQueueProbe(queue: Pick<RunQueue, "waitingCount" | "runningCount">): RunQueueProbe {
  return {
    mode: "embedded",
    waiting: async () => queue.waitingCount,
    active: async () => queue.runningCount,
    workers: async () => 0,
    redisReachable: async () => undefined,
  };
}
