import { Redis } from "ioredis";
import { z } from "zod";

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
export function openRedis(url: string, name: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, connectionName: name, lazyConnect: false });
}

/** BullMQ's connection options for `url`. */
export function bullConnection(url: string): { url: string; maxRetriesPerRequest: null } {
  return { url, maxRetriesPerRequest: null };
}
