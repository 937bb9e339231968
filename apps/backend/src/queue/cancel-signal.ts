import type { Redis } from "ioredis";
import { z } from "zod";
import { CANCEL_CHANNEL, cancelKey } from "./queue-names.ts";
import { MESSAGE_MAX_AGE_MS, type QueueSeal } from "./queue-seal.ts";

/** How long a cancel request is remembered for a worker that has yet to take the job: longer than any wait in line. */
const CANCEL_TTL_S = 24 * 3600;

/**
 * Asks whichever worker holds a run to stop it: a key (read by a worker as it takes the job, so a
 * request that races the hand-over is not lost) and a message (for the worker already running it).
 * Both are sealed: a cancel nobody with the installation's secret asked for stops nothing.
 */
export async function requestCancel(redis: Redis, seal: QueueSeal, runId: string): Promise<void> {
  await redis
    .multi()
    .set(cancelKey(runId), seal.wrap(cancelKey(runId), runId), "EX", CANCEL_TTL_S)
    .publish(CANCEL_CHANNEL, seal.wrap(CANCEL_CHANNEL, runId))
    .exec();
}

/** Whether a cancel was requested for the run (checked by a worker after it registered the run as held); an unsealed key is dropped. */
export async function cancelRequested(redis: Redis, seal: QueueSeal, runId: string): Promise<boolean> {
  const text = await redis.get(cancelKey(runId));
  return text !== null && seal.unwrap(cancelKey(runId), text, z.literal(runId), "a run's cancel key", { maxAgeMs: CANCEL_TTL_S * 1000 }) !== undefined;
}

/** Of these runs, those a cancel was requested for: one round trip for a batch's runs (`MGET`), unsealed keys dropped. */
export async function cancelsRequested(redis: Redis, seal: QueueSeal, runIds: readonly string[]): Promise<Set<string>> {
  const asked = new Set<string>();
  if (runIds.length === 0) return asked;
  const texts = await redis.mget(...runIds.map(cancelKey));
  runIds.forEach((runId, i) => {
    const text = texts[i];
    if (text != null && seal.unwrap(cancelKey(runId), text, z.literal(runId), "a run's cancel key", { maxAgeMs: CANCEL_TTL_S * 1000 }) !== undefined) asked.add(runId);
  });
  return asked;
}

/** Calls `onCancel(runId)` for every sealed cancel request; `subscriber` must be a connection of its own. */
export async function listenForCancels(subscriber: Redis, seal: QueueSeal, onCancel: (runId: string) => void): Promise<() => Promise<void>> {
  subscriber.on("message", (channel: string, text: string) => {
    if (channel !== CANCEL_CHANNEL) return;
    const runId = seal.unwrap(CANCEL_CHANNEL, text, z.string().min(1), "a cancel request", { maxAgeMs: MESSAGE_MAX_AGE_MS, once: true });
    if (runId !== undefined) onCancel(runId);
  });
  await subscriber.subscribe(CANCEL_CHANNEL);
  return async () => {
    await subscriber.quit().catch(() => undefined);
  };
}
