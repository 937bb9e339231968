import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { QueueJobCounts, RunQueueProbe } from "../ops/queue-probe.ts";

/** Commands wait out a Redis reconnect rather than fail (maxRetriesPerRequest: null); metrics and health must not wait with them. */
const PROBE_TIMEOUT_MS = 1000;

export class QueueProbeTimeoutError extends Error {
  readonly code = "QUEUE_UNREACHABLE";
}

async function within<T>(what: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new QueueProbeTimeoutError(`Redis did not answer ${what} within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS)));
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The queue mode's numbers for metrics and health, asked of Redis when read: jobs waiting, jobs held
 * by workers, and worker processes connected (BullMQ names its workers' connections). Each answer
 * comes within a second or rejects with `QueueProbeTimeoutError`.
 */
export function queueModeProbe(queue: Queue, redis: Redis, others: readonly Queue[] = []): RunQueueProbe {
  return {
    mode: "queue",
    waiting: () => within("the waiting count", queue.getWaitingCount()),
    active: () => within("the active count", queue.getActiveCount()),
    workers: () => within("the worker count", queue.getWorkersCount()),
    redisReachable: () => redisAnswers(redis),
    otherJobs: () =>
      within(
        "the agents' and scenes' job counts",
        Promise.all(others.map(async (q): Promise<QueueJobCounts> => ({ queue: q.name, waiting: await q.getWaitingCount(), active: await q.getActiveCount() }))),
      ),
  };
}

/** Whether Redis answers PING within a second (a worker's /healthz asks this too). */
export async function redisAnswers(redis: Redis): Promise<boolean> {
  try {
    return (await within("PING", redis.ping())) === "PONG";
  } catch {
    return false;
  }
}
