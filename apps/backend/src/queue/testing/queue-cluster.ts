import { startRedis, type TestRedis, type TestRedisOptions } from "../../testing/redis-server.ts";
import { spawnServer, type ChildServer } from "../../testing/child-server.ts";
import { TEST_TOKEN } from "../../testing/http-call.ts";
import { removeDir, tempDir } from "../../testing/temp-dirs.ts";
import { spawnWorker, type ChildWorker } from "./child-worker.ts";
import { queueTestDatabase, type QueueTestDatabase } from "./queue-test-database.ts";

export interface QueueClusterOptions {
  /** Prefix of the temp folders (`weft-<name>-`). */
  name: string;
  /** API processes to start (default 1). */
  apiProcesses?: number;
  /** Added to the environment of the API process at the same index only (e.g. a test-only hook on one of two). */
  apiEnv?: Record<string, string>[];
  /** `weft worker` processes to start (default 1; 0: runs wait in Redis). */
  workers?: number;
  /** Arguments of each worker started (e.g. `["--concurrency", "1"]`), and of those `startWorker` starts without its own. */
  workerArgs?: string[];
  /** Added to every process's environment, after the cluster's own (so it may override them). */
  env?: Record<string, string>;
  /** Added to the workers' environment only (e.g. a project folder of their own). */
  workerEnv?: Record<string, string>;
  /** How Redis is locked (TLS, ACL user); its CA goes to every process as NODE_EXTRA_CA_CERTS. */
  redis?: TestRedisOptions;
  /** "shared" (default): `queueTestDatabase()` (PostgreSQL, or SQLite with WEFT_QUEUE_TEST_DB=sqlite); "sqlite": only the shared data folder. */
  database?: "shared" | "sqlite";
  /** Make a project folder (`projectDir`) and give it to every process as WEFT_PROJECT_DIR. */
  projectDir?: boolean;
  /** Make another project folder (`workerProjectDir`) for the workers alone: a file a tool wrote shows where it ran. */
  workerProjectDir?: boolean;
}

/** Redis, the shared database, API processes and `weft worker` processes, all real, started for one test file. */
export interface QueueCluster {
  redis: TestRedis;
  database: QueueTestDatabase;
  /** WEFT_DATA_DIR of every process. */
  dataDir: string;
  /** WEFT_PROJECT_DIR of every process, with `projectDir: true`. */
  projectDir: string | undefined;
  /** WEFT_PROJECT_DIR of every worker, with `workerProjectDir: true`. */
  workerProjectDir: string | undefined;
  /** The environment every process was started with (the workers add `workerEnv`). */
  env: Record<string, string>;
  /** The bearer token the API processes accept. */
  token: string;
  /** The API processes, in the order started; `apis[0]` is `api`. */
  apis: ChildServer[];
  api: ChildServer;
  /** The workers running now: the ones started, then the ones `startWorker`/`restartWorker` added (killed ones removed). */
  workers: ChildWorker[];
  /** Starts one more API process (the cluster's environment plus `env`); it is stopped with the cluster. */
  startApi(env?: Record<string, string>): Promise<ChildServer>;
  /** Starts one more worker (the cluster's environment plus `env`); it is stopped with the cluster. */
  startWorker(env?: Record<string, string>, args?: string[]): Promise<ChildWorker>;
  /** Sends `signal` and waits for the process to exit (its exit code); a worker leaves `workers`. */
  kill(process: ChildServer | ChildWorker, signal?: NodeJS.Signals): Promise<number>;
  /** Kills a worker with SIGKILL and starts a fresh one with the same environment and arguments (nothing of the old one in memory). */
  restartWorker(worker: ChildWorker): Promise<ChildWorker>;
  /** Kills every process it started, stops Redis and the database, removes its folders. */
  stop(): Promise<void>;
}

export async function startQueueCluster(options: QueueClusterOptions): Promise<QueueCluster> {
  const [redis, database] = await Promise.all([
    startRedis(options.redis ?? {}),
    options.database === "sqlite" ? ({ engine: "sqlite", env: {}, stop: async () => undefined } satisfies QueueTestDatabase) : queueTestDatabase(),
  ]);
  const dataDir = tempDir(`weft-${options.name}-`);
  const projectDir = options.projectDir ? tempDir(`weft-${options.name}-project-`) : undefined;
  const workerProjectDir = options.workerProjectDir ? tempDir(`weft-${options.name}-worker-project-`) : undefined;
  const env: Record<string, string> = {
    WEFT_REDIS_URL: redis.url,
    ...(redis.caFile ? { NODE_EXTRA_CA_CERTS: redis.caFile } : {}),
    WEFT_DATA_DIR: dataDir,
    ...(projectDir ? { WEFT_PROJECT_DIR: projectDir } : {}),
    WEFT_DEMO_LLM: "off",
    ...database.env,
    ...options.env,
  };
  const workerArgs = options.workerArgs ?? [];
  const started: { proc: ReturnType<typeof Bun.spawn> }[] = [];
  const workers: ChildWorker[] = [];
  const launches = new Map<ChildWorker, { env: Record<string, string>; args: string[] }>();

  const startApi = async (extra: Record<string, string> = {}): Promise<ChildServer> => {
    const api = await spawnServer(dataDir, { ...env, ...extra });
    started.push(api);
    return api;
  };
  const startWorker = async (extra: Record<string, string> = {}, args: string[] = workerArgs): Promise<ChildWorker> => {
    const workerEnv = { ...env, ...(workerProjectDir ? { WEFT_PROJECT_DIR: workerProjectDir } : {}), ...options.workerEnv, ...extra };
    const worker = await spawnWorker(workerEnv, args);
    started.push(worker);
    workers.push(worker);
    launches.set(worker, { env: workerEnv, args });
    return worker;
  };
  const kill = async (child: ChildServer | ChildWorker, signal: NodeJS.Signals = "SIGKILL"): Promise<number> => {
    child.proc.kill(signal);
    const code = await child.proc.exited;
    const index = workers.indexOf(child as ChildWorker);
    if (index >= 0) workers.splice(index, 1);
    return code;
  };
  const stop = async (): Promise<void> => {
    for (const child of started) child.proc.kill("SIGKILL");
    await Promise.all(started.map((child) => child.proc.exited));
    await Promise.all([redis.stop(), database.stop()]);
    removeDir(dataDir);
    for (const dir of [projectDir, workerProjectDir]) if (dir) removeDir(dir);
  };

  try {
    // The first API process alone: it migrates the shared database before anyone else opens it.
    const first = await startApi(options.apiEnv?.[0]);
    // Then the others and the workers together: on a busy machine each takes seconds to start.
    const [others] = await Promise.all([
      Promise.all(Array.from({ length: (options.apiProcesses ?? 1) - 1 }, (_, i) => startApi(options.apiEnv?.[i + 1]))),
      Promise.all(Array.from({ length: options.workers ?? 1 }, () => startWorker())),
    ]);
    return {
      redis,
      database,
      dataDir,
      projectDir,
      workerProjectDir,
      env,
      token: env.WEFT_AUTH_TOKEN ?? TEST_TOKEN,
      apis: [first, ...others],
      api: first,
      workers,
      startApi,
      startWorker,
      kill,
      async restartWorker(worker) {
        const launch = launches.get(worker);
        if (!launch) throw new Error(`worker ${worker.id} was not started by this cluster`);
        await kill(worker);
        return await startWorker(launch.env, launch.args);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
