import { Redis } from "ioredis";
import { z } from "zod";
import { messageOf, type Logger } from "@weft/types";

/** BullMQ's key prefix and queue name: every Weft key in Redis starts with `weft:`. */
export const QUEUE_PREFIX = "weft";
export const RUN_QUEUE = "runs";
/** Job name of a workflow run; the job id is the run id, so a run is queued at most once. */
export const RUN_JOB = "workflow-run";

/** A run job carries only the run's id: the run record and its workflow are read from the shared database. */
export const RunJobDataSchema = z.object({ runId: z.string().min(1) });
export type RunJobData = z.infer<typeof RunJobDataSchema>;

/** Pub/sub channel: "these streams have new events up to seq N" (see `event-relay.ts`). */
export const EVENTS_CHANNEL = "weft:events";
/** Pub/sub channel: "stop run X" (see `cancel-signal.ts`). */
export const CANCEL_CHANNEL = "weft:cancel";
/** Key set beside the cancel message, so a worker that takes the job just after the message still sees it. */
export const cancelKey = (runId: string) => `weft:cancel:${runId}`;

/**
 * A Redis connection for Weft's own commands and pub/sub. `maxRetriesPerRequest: null` as BullMQ
 * requires for its blocking connections; the same here so a Redis restart delays, rather than drops, a command.
 */
export function openRedis(url: string, name: string, log: Logger): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null, connectionName: name, lazyConnect: false });
  redis.on("error", errorReporter(`redis connection ${name}`, log));
  return redis;
}

/** Errors of one connection logged at most every this often (ioredis retries every few hundred ms while Redis is away). */
const ERROR_LOG_INTERVAL_MS = 30_000;

/**
 * An "error" listener for a Redis connection, BullMQ queue or worker: without one they print
 * "Unhandled error event" on every retry; with it, one warning per outage-sized interval.
 */
export function errorReporter(what: string, log: Logger): (error: Error) => void {
  let lastLogged = 0;
  return (error: Error) => {
    const now = Date.now();
    if (now - lastLogged < ERROR_LOG_INTERVAL_MS) return;
    lastLogged = now;
    log.warn(`${what} failed; retrying`, { error: messageOf(error) });
  };
}

/** BullMQ's connection options for `url`. */
export function bullConnection(url: string): { url: string; maxRetriesPerRequest: null } {
  return { url, maxRetriesPerRequest: null };
}
