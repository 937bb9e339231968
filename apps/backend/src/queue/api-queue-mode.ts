import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "@weft/types";
import type { Tracing } from "@weft/agent-runtime";
import type { EventRepository } from "../events/event-repository.ts";
import type { RunDispatcher } from "../runs/run-dispatcher.ts";
import type { RunQueueProbe } from "../ops/queue-probe.ts";
import { AGENT_QUEUE, bullConnection, errorReporter, openRedis, QUEUE_PREFIX, RUN_QUEUE, SCENE_QUEUE, type RunQueueJobData } from "./queue-names.ts";
import { EventRelay, RelayingEventHub } from "./event-relay.ts";
import { QueueRunDispatcher } from "./queue-dispatcher.ts";
import { queueModeProbe } from "./queue-probe.ts";
import { ControlClient } from "./control-rpc.ts";
import { SettingsSignal } from "./settings-signal.ts";
import { AccountSignal } from "./account-signal.ts";
import type { AccountService } from "../accounts/account-service.ts";
import type { RunRuntime } from "../runtime/run-runtime.ts";
import type { QueueSeal, SealedJob } from "./queue-seal.ts";

/** How long closing waits for Redis before it just drops the connections. */
const CLOSE_WAIT_MS = 2000;

/** What an API process needs in the queue mode: its hub, its dispatcher, a probe for metrics and health. */
export interface ApiQueueMode {
  /** Announces this process's events and delivers the other processes' (use it instead of a plain `EventHub`). */
  hub: RelayingEventHub;
  /** Runs go to BullMQ instead of this process's `RunQueue`. */
  dispatcher: RunDispatcher;
  /** Queue depth, active runs and workers, read from BullMQ. */
  probe: RunQueueProbe;
  /** Requests to the worker holding an agent's conversation or a scene (see `control-rpc.ts`). */
  control: ControlClient;
  /** This process's command connection (fail-fast), for agents' and scenes' queues and keys. */
  redis: Redis;
  redisUrl: string;
  /** Seals what this process puts on Redis and checks what it reads there; its rejections are counted in /metrics. */
  seal: QueueSeal;
  /** Announces the settings saved here and applies those saved by other processes. */
  followSettings(runtime: Pick<RunRuntime, "permissions" | "mcpSettings" | "llmProfiles" | "usage">): Promise<unknown>;
  /** Announces the credential changes made here and calls `recheck` for those made in other API processes. */
  followAccounts(accounts: Pick<AccountService, "onCredentialsChanged">, recheck: (userId: string) => void): Promise<unknown>;
  close(): Promise<void>;
}

/** Connects an API process to Redis: the run queue, the event relay in both directions, the cancel channel. */
export async function startApiQueueMode(options: {
  redisUrl: string;
  seal: QueueSeal;
  events: EventRepository;
  maxWaiting: number;
  log: Logger;
  /** When the process traces: each queued run's job carries its trace (`traceparent`) to the worker. */
  tracing?: Tracing;
}): Promise<ApiQueueMode> {
  const { seal } = options;
  const origin = `api-${randomUUID()}`;
  const log = options.log;
  // Fail fast: with Redis away, starting or cancelling a run answers 503 at once rather than hanging the request.
  const redis = await openRedis(options.redisUrl, `${origin}:commands`, log, "fail-fast");
  const subscriber = await openRedis(options.redisUrl, `${origin}:events`, log).catch((error: unknown) => {
    redis.disconnect();
    throw error;
  });
  const replies = await openRedis(options.redisUrl, `${origin}:control`, log).catch((error: unknown) => {
    redis.disconnect();
    subscriber.disconnect();
    throw error;
  });
  const queue = new Queue<SealedJob<RunQueueJobData>>(RUN_QUEUE, { connection: bullConnection(options.redisUrl, "fail-fast"), prefix: QUEUE_PREFIX });
  queue.on("error", errorReporter("run queue", log));
  // Read-only handles for metrics: the agents' and scenes' hosts add their jobs through queues of their own.
  const probed = [AGENT_QUEUE, SCENE_QUEUE].map((name) => new Queue(name, { connection: bullConnection(options.redisUrl, "fail-fast"), prefix: QUEUE_PREFIX }));
  for (const q of probed) q.on("error", errorReporter(`${q.name} queue`, log));
  try {
    await queue.waitUntilReady();
    const hub = new RelayingEventHub(origin, redis, seal, options.log.child("relay"));
    const relay = new EventRelay(hub, options.events, subscriber, options.log.child("relay"));
    await relay.start();
    const control = new ControlClient(origin, redis, replies, seal);
    await control.start();
    return {
      hub,
      dispatcher: new QueueRunDispatcher(queue, redis, seal, options.maxWaiting, options.tracing),
      probe: queueModeProbe(queue, redis, probed),
      control,
      redis,
      redisUrl: options.redisUrl,
      seal,
      // On the control replies' connection: it is in subscriber mode already, and each listener filters by channel.
      followSettings: (runtime) => new SettingsSignal(origin, redis, seal, options.log.child("settings")).follow(runtime, replies),
      followAccounts: (accounts, recheck) => new AccountSignal(origin, redis, seal, options.log.child("accounts")).follow(accounts, recheck, replies),
      async close() {
        // Bounded: with Redis away, a graceful close would wait for it forever and hold up the server's stop.
        const closed = Promise.all([relay.stop(), control.stop(), queue.close(), ...probed.map((q) => q.close()), redis.quit()]).then(
          () => true,
          () => false,
        );
        if (!(await Promise.race([closed, Bun.sleep(CLOSE_WAIT_MS).then(() => false)]))) {
          for (const q of [queue, ...probed]) void q.disconnect().catch(() => undefined);
          redis.disconnect();
          subscriber.disconnect();
          replies.disconnect();
        }
      },
    };
  } catch (error) {
    await Promise.all([queue, ...probed].map((q) => q.close().catch(() => undefined)));
    redis.disconnect();
    subscriber.disconnect();
    replies.disconnect();
    throw error;
  }
}
