import type { Logger, SecretRedactor } from "@weft/types";
import type { RunRuntime } from "../runtime/run-runtime.ts";
import type { Storage } from "../app-storage.ts";
import type { SceneHost } from "../scenes/scene-host.ts";
import type { SceneService } from "../scenes/scene-service.ts";
import type { SceneStore } from "../scenes/scene-store.ts";
import { startApiQueueMode, type ApiQueueMode } from "./api-queue-mode.ts";
import { QueuedAgentHost } from "./queued-agent-host.ts";
import { QueuedSceneHost } from "./queued-scene-host.ts";
import { installationSeal } from "./queue-seal.ts";

/** The server options the queue mode is started from (`ServerOptions`' fields of the same names). */
export interface ApiQueueOptions {
  dataDir: string;
  redisUrl?: string;
  secret?: string;
  maxQueuedRuns?: number;
}

/** An API process's queue mode, with the hosts that send agents' loops and scenes to the workers. */
export interface ApiQueue extends ApiQueueMode {
  /** The `AgentHost` the agents' routes use: each message's loop runs on a worker (`agent-worker.ts`); this process asks the worker holding it. */
  agentHost: QueuedAgentHost;
  /** Builds the `SceneHost` the scenes' routes use around this process's service: scenes run on workers (`scene-worker.ts`). */
  sceneHost(local: SceneService, store: SceneStore): SceneHost;
}

/**
 * With `redisUrl`, the queue mode of an API process: runs go to BullMQ workers, and events, cancels and settings
 * travel through Redis (see README.md). Without it, nothing: the process runs everything itself.
 */
export async function composeApiQueue(options: ApiQueueOptions, deps: { storage: Storage; rt: RunRuntime; redactor: SecretRedactor; log: Logger }): Promise<ApiQueue | undefined> {
  if (!options.redisUrl) return undefined;
  const { storage, rt, log } = deps;
  const mode = await startApiQueueMode({
    redisUrl: options.redisUrl,
    // Keyed by the installation's secret, as the workers' is: what they put on Redis is checked here, and the other way round.
    seal: installationSeal(options.dataDir, options.secret, deps.redactor, log.child("queue")),
    events: storage.events,
    maxWaiting: options.maxQueuedRuns ?? 10_000,
    log: log.child("queue"),
    ...(rt.tracing ? { tracing: rt.tracing } : {}),
  });
  try {
    await mode.followSettings(rt);
  } catch (error) {
    await mode.close();
    throw error;
  }
  const { catalog, workflows } = rt;
  const agentHost = new QueuedAgentHost({ storage, catalog, workflows, redis: mode.redis, redisUrl: mode.redisUrl, control: mode.control, seal: mode.seal, log: log.child("agents") });
  return { ...mode, agentHost, sceneHost: (local, store) => new QueuedSceneHost(local, store, mode, log.child("scenes")) };
}
