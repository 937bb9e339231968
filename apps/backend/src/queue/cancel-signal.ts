import type { Redis } from "ioredis";
import { CANCEL_CHANNEL, cancelKey } from "./queue-names.ts";

/** How long a cancel request is remembered for a worker that has yet to take the job: longer than any wait in line. */
const CANCEL_TTL_S = 24 * 3600;

/**
 * Asks whichever worker holds a run to stop it: a key (read by a worker as it takes the job, so a
 * request that races the hand-over is not lost) and a message (for the worker already running it).
 */
export async function requestCancel(redis: Redis, runId: string): Promise<void> {
  await redis.multi().set(cancelKey(runId), "1", "EX", CANCEL_TTL_S).publish(CANCEL_CHANNEL, runId).exec();
}

/** Whether a cancel was requested for the run (checked by a worker after it registered the run as held). */
export async function cancelRequested(redis: Redis, runId: string): Promise<boolean> {
  return (await redis.exists(cancelKey(runId))) === 1;
}

/** Calls `onCancel(runId)` for every cancel request; `subscriber` must be a connection of its own. */
export async function listenForCancels(subscriber: Redis, onCancel: (runId: string) => void): Promise<() => Promise<void>> {
  subscriber.on("message", (channel: string, runId: string) => {
    if (channel === CANCEL_CHANNEL) onCancel(runId);
  });
  await subscriber.subscribe(CANCEL_CHANNEL);
  return async () => {
    await subscriber.quit().catch(() => undefined);
  };
}
