import { randomUUID } from "node:crypto";
import { createLogger, redactingLogger, SecretRedactor, type Logger } from "@weft/types";
import { EventJournal } from "../events/event-journal.ts";
import { RunExecutor } from "../runs/run-executor.ts";
import { approvalWaits } from "../approvals/index.ts";
import { createRunRuntime, runtimeChoices, type RunRuntime } from "../runtime/run-runtime.ts";
import { hostingOf } from "../runtime/hosting.ts";
import { openProcessStorage, type Storage } from "../app-storage.ts";
import { loadAccessToken } from "../auth/access-token.ts";
import { startWorkerOps, type WorkerOps } from "../ops/worker-ops.ts";
import type { Redis } from "ioredis";
import { RelayingEventHub } from "./event-relay.ts";
import { RunWorker } from "./run-worker.ts";
import { redisAnswers } from "./queue-probe.ts";
import { SettingsSignal } from "./settings-signal.ts";
import { ControlServer, type ControlHandler, type HeldKind } from "./control-rpc.ts";
import { createSceneService } from "../scenes/index.ts";
import { SceneWorker } from "./scene-worker.ts";
import { AgentService } from "../agents/agent-service.ts";
import { AgentWorker } from "./agent-worker.ts";
import { installationSeal, type SealedJob } from "./queue-seal.ts";
import { Queue } from "bullmq";
import { bullConnection, errorReporter, openRedis, QUEUE_PREFIX, RUN_QUEUE, type RunQueueJobData } from "./queue-names.ts";
import { QueueRunDispatcher } from "./queue-dispatcher.ts";
import { RunService, startErrorWorkflows } from "../runs/index.ts";
import { withSkillCheck } from "../workflows/index.ts";
import { AccountTable, runStarterCheck } from "../accounts/index.ts";

export interface WorkerProcessOptions {
  /** Folder of the master key (unless `secret`), the tools' state and, without `databaseUrl`, the SQLite file: the API's. */
  dataDir: string;
  /** WEFT_DATABASE_URL: the API's PostgreSQL database. */
  databaseUrl?: string;
  /** WEFT_DB_POOL_SIZE: PostgreSQL connections in this worker's pool (default 10). */
  dbPoolSize?: number;
  /** WEFT_REDIS_URL: the API's Redis. */
  redisUrl: string;
  /** WEFT_SECRET: the master key passphrase; workers on other machines need it (or a copy of the key file). */
  secret?: string;
  /** Runs executed at once. Default 4. */
  concurrency?: number;
  /** Scenes held at once (a held scene mostly waits: for its agents' models, for the user). Default 64. */
  sceneConcurrency?: number;
  /** Agent conversation loops run at once (they mostly wait: for the LLM, for a permission). Default 16. */
  agentConcurrency?: number;
  examplesDir?: string;
  projectDir?: string;
  /** Start an embedded demo LLM for the default profile, as the API does. Default true. */
  demoLlm?: boolean;
  /** WEFT_MAX_OUTPUT_BYTES: the most one node may return, as the API's. */
  maxOutputBytes?: number;
  /** See `QueueWorkerOptions.lockMs`. */
  lockMs?: number;
  /** How long running runs may take to finish on SIGTERM before they are stopped (`interrupted`). */
  shutdownGraceMs?: number;
  /** WEFT_WORKER_METRICS_PORT: serve this worker's `GET /metrics` and `GET /healthz` on it (0 picks a free port). Unset: no listener. */
  metricsPort?: number;
  /** WEFT_HOST: the address the metrics listener binds. Default 127.0.0.1. */
  metricsHostname?: string;
  /** WEFT_AUTH_TOKEN: the bearer token /metrics asks for; otherwise `<dataDir>/access-token`, as the API's. */
  authToken?: string;
  /** WEFT_PUBLIC_URL: the editor's address, for the link an error workflow gets (as the API's). */
  publicUrl?: string;
  logger?: Logger;
}

export interface WorkerProcess {
  /** This worker's id in event announcements and logs. */
  id: string;
  storage: Storage;
  worker: RunWorker;
  /** Agents' conversation loops (queue "agents"). */
  agentWorker: AgentWorker;
  /** The metrics and health listener, when `metricsPort` was given. */
  metricsUrl?: string;
  /** Stops taking jobs, lets running ones finish (bounded by shutdownGraceMs), flushes events, closes. */
  stop(): Promise<void>;
}

/**
 * `weft worker`: opens the API's storage, builds the engine with the API's own `createRunRuntime` (same
 * nodes, LLM profiles, credentials, MCP servers and tool host) and executes run jobs from the queue.
 *
 * Each worker keeps its own output cache per workflow (`WorkflowCaches`): a re-run reuses upstream
 * outputs only when it lands on a worker that ran that workflow before. Sharing the cache through
 * Redis would ship every node output across the network for a saving most runs do not see.
 * Settings saved in the editor (permissions, MCP servers) reach a worker at once (`settings-signal.ts`).
 */
export async function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerProcess> {
  const id = `worker-${randomUUID()}`;
  const redactor = new SecretRedactor();
  const log = redactingLogger(options.logger ?? createLogger("weft-worker"), redactor);
  const { storage, payloads } = await openProcessStorage({ dataDir: options.dataDir, databaseUrl: options.databaseUrl, poolSize: options.dbPoolSize, redactor, log });
  let runtime: RunRuntime | undefined;
  let redis: Redis | undefined;
  let subscriber: Redis | undefined;
  let controlSubscriber: Redis | undefined;
  let ops: WorkerOps | undefined;
  let runQueue: Queue<SealedJob<RunQueueJobData>> | undefined;
  try {
    // The API's key (its WEFT_SECRET or master.key): without it nothing this worker reads from Redis would pass its check.
    const seal = installationSeal(options.dataDir, options.secret, redactor, log.child("queue"));
    const commands = (redis = await openRedis(options.redisUrl, `${id}:commands`, log.child("queue")));
    subscriber = await openRedis(options.redisUrl, `${id}:cancel`, log.child("queue"));
    controlSubscriber = await openRedis(options.redisUrl, `${id}:control`, log.child("queue"));
    // Requests from API processes about the agents and scenes this worker holds, each kind answered by its own host.
    const controlHandlers = new Map<HeldKind, ControlHandler>();
    const control = new ControlServer(
      id,
      commands,
      controlSubscriber,
      async (kind, heldId, op, args) => {
        const handler = controlHandlers.get(kind);
        if (!handler) throw new Error(`this worker hosts no ${kind}s`);
        return handler(kind, heldId, op, args);
      },
      seal,
      log.child("control"),
    );
    await control.start();
    // A permission question of a workflow run has nobody to answer it in a worker and is refused; an agent loop's
    // goes to its live agent here (the broker routes it by conversation), answered through an API (`AgentWorker.control`).
    const rt = (runtime = await createRunRuntime({
      storage,
      redactor,
      log,
      dataDir: options.dataDir,
      ...runtimeChoices(options),
      // The API creates the default profiles; a worker only reads them.
      createDefaultProfiles: false,
      serviceName: "weft-worker",
    }));

    // Settings saved in the editor apply here at once; the cancel listener shares the connection (each filters by channel).
    const settings = await new SettingsSignal(id, commands, seal, log.child("settings")).follow(rt, subscriber);
    const hub = new RelayingEventHub(id, commands, seal, log.child("relay"));
    const journal = new EventJournal(storage, hub, { maxBatch: 512, flushMs: 5 }, log.child("journal"), payloads);
    journal.onRunAdded((record) => rt.usage.runFacts.know(record));
    // Its runs' events reach no API process's metrics (the relay delivers them to subscribers only): the worker serves its own.
    if (options.metricsPort !== undefined) {
      ops = startWorkerOps({
        hub,
        sql: storage.sql,
        redisReachable: () => redisAnswers(commands),
        queueRejections: () => seal.rejected(),
        port: options.metricsPort,
        ...(options.metricsHostname !== undefined ? { hostname: options.metricsHostname } : {}),
        token: loadAccessToken(options.dataDir, options.authToken).value,
      });
      log.info("worker metrics listening", { url: ops.url });
      // The LLM calls of its runs are answered here: their tokens and cost are counted on its own /metrics.
      rt.usage.recorder.onRecord(ops.metrics.llmUsage);
    }
    // A run that pauses on this worker stores its approvals here; a resumed one reads its decisions here.
    const executor = new RunExecutor({ journal, engineFor: rt.engineFor, observations: storage.observations, waits: approvalWaits(storage), log: log.child("runs") });
    const slots = (concurrency: number) => ({ redisUrl: options.redisUrl, concurrency, ...(options.lockMs !== undefined ? { lockMs: options.lockMs } : {}) });
    // What the agents' and the scenes' services run with: this worker's engine, tools and journal.
    const hosting = hostingOf(rt, storage, journal);
    // A run failing here starts its workflow's error workflow from here: recorded, and queued for any worker.
    const errorRunQueue = (runQueue = new Queue<SealedJob<RunQueueJobData>>(RUN_QUEUE, { connection: bullConnection(options.redisUrl, "fail-fast"), prefix: QUEUE_PREFIX }));
    errorRunQueue.on("error", errorReporter("run queue", log));
    const runs = new RunService({
      storage,
      journal,
      // The API's limit on waiting runs is for requests: an error run is one per failed run, never refused for it.
      dispatcher: new QueueRunDispatcher(errorRunQueue, commands, seal, Number.MAX_SAFE_INTEGER),
      executor,
      validator: withSkillCheck(rt.engine, (workflowId) => storage.workflows.isStored(workflowId)),
      log: log.child("runs"),
    });
    startErrorWorkflows(executor, runs, {
      storage,
      mayRun: runStarterCheck(new AccountTable(storage)),
      ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
      log: log.child("runs"),
    });
    const worker = new RunWorker(slots(options.concurrency ?? 4), {
      storage,
      executor,
      redis: commands,
      subscriber,
      seal,
      knowRun: (record) => rt.usage.runFacts.know(record),
      settingsApplied: () => settings.applied(),
      log: log.child("queue"),
    });
    await worker.start();
    const agents = new AgentService({
      ...hosting,
      log: log.child("agents"),
      keepIdle: false,
      onRunStarted: (conversationId, runId) => agentWorker.noteRun(conversationId, runId),
    });
    const agentWorker = new AgentWorker(slots(options.agentConcurrency ?? 16), { agents, control, redis: commands, storage, executor, seal, log: log.child("agents") });
    controlHandlers.set("agent", agentWorker.control);
    await agentWorker.start();
    // Scenes run here, with their agents and all the runs those cause, while this worker holds their jobs.
    const sceneService = createSceneService({ ...hosting, log: log.child("scenes") });
    const sceneWorker = new SceneWorker(slots(options.sceneConcurrency ?? 64), { service: sceneService, control, redis: commands, seal, log: log.child("scenes") });
    controlHandlers.set("scene", (_kind, sceneId, op, args) => sceneWorker.control(sceneId, op, args));
    await sceneWorker.start();
    log.info("worker ready", { id, concurrency: options.concurrency ?? 4 });

    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        // Scenes are saved and handed back at once (another worker continues them), not run to an end.
        await sceneWorker.stop();
        await Promise.all([worker.stop(options.shutdownGraceMs ?? 30_000), agentWorker.stop(options.shutdownGraceMs ?? 30_000)]);
        await control.stop();
        await journal.flush();
        await errorRunQueue.close();
        await rt.close();
        await ops?.stop();
        await commands.quit().catch(() => undefined);
        await storage.close();
      })());
    return { id, storage, worker, agentWorker, ...(ops ? { metricsUrl: ops.url } : {}), stop };
  } catch (error) {
    await ops?.stop();
    await runQueue?.close();
    await runtime?.close();
    redis?.disconnect();
    subscriber?.disconnect();
    controlSubscriber?.disconnect();
    await storage.close();
    throw error;
  }
}
