import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { RunQueueProbe } from "../ops/queue-probe.ts";
import type { RunJobData } from "./queue-names.ts";

/**
 * The queue mode's numbers for metrics and health, asked of Redis when read: jobs waiting, jobs
 * held by workers, and worker processes connected (BullMQ names its workers' connections).
 */
export function queueModeProbe(queue: Queue<RunJobData>, redis: Redis): RunQueueProbe {
  return {
    mode: "queue",
    waiting: () => queue.getWaitingCount(),
    active: () => queue.getActiveCount(),
    workers: () => queue.getWorkersCount(),
    redisReachable: async () => {
      try {
        return (await redis.ping()) === "PONG";
      } catch {
        return false;
      }
    },
  };
}
