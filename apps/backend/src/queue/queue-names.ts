import { Worker, type Processor } from "bullmq";
import { Redis } from "ioredis";
import { z } from "zod";
import { AgentProfileSchema, messageOf, type Logger } from "@weft/types";
import { ServiceError } from "../service-error.ts";

/** BullMQ's key prefix and queue name: every Weft key in Redis starts with `weft:`. */
export const QUEUE_PREFIX = "weft";
export const RUN_QUEUE = "runs";
/** Job name of a workflow run; the job id is the run id, so a run is queued at most once. */
export const RUN_JOB = "workflow-run";

/** A run job carries only the run's id: the run record and its workflow are read from the shared database. */
/** A W3C `traceparent` a job carries, so the worker's spans continue the API's trace. */
const TraceparentSchema = z
  .string()
  .regex(/^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/)
  .optional();

export const RunJobDataSchema = z.object({
  runId: z.string().min(1),
  /** W3C trace context of the API's `enqueue run` span, when the API traces: the worker's run span is its child. */
  traceparent: TraceparentSchema,
});
export type RunJobData = z.infer<typeof RunJobDataSchema>;

/** Most runs one batch job carries: a batch is executed one run after another, so it holds one worker slot that long. */
export const MAX_RUN_BATCH = 100;
/**
 * Job name of a batch of recorded runs (an eval run's cases), executed one after another by the worker that takes it; its
 * id is `batch-<uuid>`. Handed over again after a stall, it skips the runs that ended and closes the one left running.
 */
export const RUN_BATCH_JOB = "workflow-run-batch";
export const RunBatchJobDataSchema = z.object({ runIds: z.array(z.string().min(1)).min(1).max(MAX_RUN_BATCH) });
export type RunBatchJobData = z.infer<typeof RunBatchJobDataSchema>;
/** What the run queue's jobs carry: one run, or a batch. */
export type RunQueueJobData = RunJobData | RunBatchJobData;

/** Agents' conversation loops: a job per user message (see `agent-worker.ts`); its id is the busy marker's value. */
export const AGENT_QUEUE = "agents";
export const AGENT_JOB = "agent-message";
/**
 * `messagesBefore`: how many messages the conversation held when the message was queued (one loop at a time
 * runs in a conversation, and each appends to it), so a worker refuses the same sealed job added again later.
 */
export const AgentJobDataSchema = z.object({
  agentId: z.string().min(1),
  conversationId: z.string().min(1),
  message: z.string(),
  createdBy: z.string().optional(),
  messagesBefore: z.number().int().nonnegative(),
  /**
   * The profile to run instead of the stored one (an eval suite's chosen version or LLM profile), checked by the API
   * that queued it; absent, the worker reads the stored profile. The job is sealed, so a worker trusts it as it trusts the rest.
   */
  profile: AgentProfileSchema.optional(),
  /** The trace the message was sent in (a caller's `traceparent`), when the API traces: the worker's agent steps join it. */
  traceparent: TraceparentSchema,
});
export type AgentJobData = z.infer<typeof AgentJobDataSchema>;
/** Set (NX) by the API that queues a conversation's message, to its job's id; deleted when that loop ends. */
export const agentBusyKey = (conversationId: string) => `weft:agent-busy:${conversationId}`;
/** Set when a conversation's loop is cancelled before a worker held it (read by the worker as it takes the job). */
export const agentCancelKey = (jobId: string) => `weft:agent-cancel:${jobId}`;
/** How long a cancel waits in Redis for a worker to take the loop it is about. */
export const AGENT_CANCEL_KEY_SECONDS = 600;

/** Scenes hosted by workers: one job per started scene, held by a worker as long as the scene is loaded there (see `scene-worker.ts`). */
export const SCENE_QUEUE = "scenes";
export const SCENE_JOB = "scene";
/** A scene's job id: one per scene, so two API processes cannot start (or restore) it twice. BullMQ refuses ":" in ids. */
export const sceneJobId = (sceneId: string) => `scene-${encodeURIComponent(sceneId)}`;

/**
 * "new": start a new session (`requestId` names the API request waiting for the outcome); "restore":
 * continue the saved one. A started job's data is changed to "restore", so a job handed over after a
 * stall (its worker was killed) continues the scene instead of starting it again.
 */
export const SceneJobDataSchema = z.object({ sceneId: z.string().min(1), mode: z.enum(["new", "restore"]), startedBy: z.string().optional(), requestId: z.string().optional() });
export type SceneJobData = z.infer<typeof SceneJobDataSchema>;

/** Pub/sub channel: "these streams have new events up to seq N" (see `event-relay.ts`). */
export const EVENTS_CHANNEL = "weft:events";
/** Pub/sub channel: "settings X were saved" (see `settings-signal.ts`). */
export const SETTINGS_CHANNEL = "weft:settings";
/** Pub/sub channel: "user X's credentials changed: check their open sockets again" (see `account-signal.ts`). */
export const ACCOUNTS_CHANNEL = "weft:accounts";
/** Pub/sub channel: "stop run X" (see `cancel-signal.ts`). */
export const CANCEL_CHANNEL = "weft:cancel";
/** Key set beside the cancel message, so a worker that takes the job just after the message still sees it. */
export const cancelKey = (runId: string) => `weft:cancel:${runId}`;

/**
 * How a connection behaves while Redis is away. "wait": commands wait for it to come back (workers,
 * subscribers; what BullMQ requires of its blocking connections). "fail-fast": commands fail at once,
 * so an API request gets a 503 instead of hanging.
 */
export type RedisPatience = "wait" | "fail-fast";

const patienceOptions = (patience: RedisPatience) => (patience === "wait" ? { maxRetriesPerRequest: null } : { maxRetriesPerRequest: 1, enableOfflineQueue: false });

/** A Redis connection for Weft's own commands and pub/sub; resolves once it is ready (or rejects after `READY_TIMEOUT_MS`). */
export async function openRedis(url: string, name: string, log: Logger, patience: RedisPatience = "wait"): Promise<Redis> {
  const redis = new Redis(url, { ...patienceOptions(patience), connectionName: name, lazyConnect: false });
  redis.on("error", errorReporter(`redis connection ${name}`, log));
  if (redis.status === "ready") return redis;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      redis.once("ready", () => resolve());
      timer = setTimeout(() => reject(new RedisUnreachableError(`Redis at ${redactUrl(url)} did not answer within ${READY_TIMEOUT_MS / 1000} s.`)), READY_TIMEOUT_MS);
    });
  } catch (error) {
    redis.disconnect();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return redis;
}

const READY_TIMEOUT_MS = 20_000;

/** Redis did not answer when a process started in queue mode. */
export class RedisUnreachableError extends Error {
  readonly code = "REDIS_UNREACHABLE";
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparsable URL)";
  }
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

/** BullMQ's connection options for `url` (a worker's must "wait"; see `RedisPatience`). */
export function bullConnection(url: string, patience: RedisPatience = "wait"): { url: string; maxRetriesPerRequest: number | null; enableOfflineQueue?: boolean } {
  return { url, ...patienceOptions(patience) };
}

/** What every Weft queue worker (runs, agents' loops, scenes) sets the same way. */
export interface QueueWorkerOptions {
  redisUrl: string;
  concurrency: number;
  /** How long a job's lock lasts without renewal (renewed at half this while the process lives). Default 30 s. */
  lockMs?: number;
  /** Hand-overs after a stall before BullMQ fails the job: what a second taking of the job does decides it. */
  maxStalledCount: number;
  /** Named in the warning when Redis is away. */
  what: string;
}

/** What a process sets per queue: where Redis is, how many jobs at once, the lock time. */
export type QueueWorkerSlots = Pick<QueueWorkerOptions, "redisUrl" | "concurrency" | "lockMs">;

/** A BullMQ worker on one of Weft's queues: a killed worker's jobs are found stalled within about twice the lock time. */
export function queueWorker<T>(queue: string, processor: Processor<T>, options: QueueWorkerOptions, log: Logger): Worker<T> {
  const lockDuration = options.lockMs ?? 30_000;
  const worker = new Worker<T>(queue, processor, {
    connection: bullConnection(options.redisUrl),
    prefix: QUEUE_PREFIX,
    concurrency: options.concurrency,
    lockDuration,
    stalledInterval: lockDuration,
    maxStalledCount: options.maxStalledCount,
  });
  worker.on("error", errorReporter(options.what, log));
  return worker;
}

const DELETE_IF_VALUE_SCRIPT = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`;

/** Deletes `key` only while it holds `value`: another process may have set it since (a later message, a worker that took over). */
export async function deleteIfValue(redis: Redis, key: string, value: string): Promise<void> {
  await redis.eval(DELETE_IF_VALUE_SCRIPT, 1, key, value);
}

/**
 * `work` on Redis or BullMQ under a request: a failure there (Redis away) answers 503 QUEUE_UNAVAILABLE, as
 * for runs, rather than a 500; a `ServiceError` (a worker's refusal) passes through with its code.
 */
export async function whileQueueReachable<T>(queue: string, what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    throw new ServiceError("SERVICE_UNAVAILABLE", `The ${queue} is unreachable, so Weft could not ${what}; retry shortly.`, { reason: "QUEUE_UNAVAILABLE", error: messageOf(error) });
  }
}
