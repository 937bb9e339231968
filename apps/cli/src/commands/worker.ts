import { parseArgs } from "node:util";
import { configFromEnv, ConfigError } from "@weft/backend/src/config.ts";
import { startWorkerProcess } from "@weft/backend/src/queue/worker-process.ts";
import { createLogger, messageOf } from "@weft/types";
import { CliError, EXIT_USAGE } from "../support/cli-error.ts";

export const WORKER_USAGE =
  "weft worker [--concurrency N] [--agents N] [--scenes N]   execute queued runs, agents' conversation loops and scenes (queue mode): the API's WEFT_REDIS_URL, WEFT_DATABASE_URL (or WEFT_DATA_DIR) and WEFT_SECRET; N runs at once (default WEFT_RUN_CONCURRENCY, 4), agent loops at once (default 16), scenes held at once (default 64); SIGTERM finishes running runs (WEFT_SHUTDOWN_GRACE_MS, default 30 s), then stops; WEFT_WORKER_METRICS_PORT serves this worker's GET /metrics (bearer: the access token, WEFT_AUTH_TOKEN) and GET /healthz on WEFT_HOST (default 127.0.0.1)";

/** Worker-only settings: how long a job's lock lasts (a killed worker's runs are found within about twice this). */
function lockMs(env: Record<string, string | undefined>): number | undefined {
  const text = env.WEFT_WORKER_LOCK_MS;
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 500) throw new CliError(`WEFT_WORKER_LOCK_MS must be an integer of at least 500 (ms), got "${text}".`, EXIT_USAGE);
  return value;
}

/** An optional count of jobs held at once, from 1 to 1024. */
function slots(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 1024) throw new CliError(`${flag} must be an integer from 1 to 1024, got "${text}".`, EXIT_USAGE);
  return value;
}

export async function workerCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { concurrency: { type: "string" }, agents: { type: "string" }, scenes: { type: "string" }, help: { type: "boolean", short: "h" } } });
  if (values.help) {
    process.stdout.write(`${WORKER_USAGE}\n`);
    return 0;
  }
  let config;
  try {
    config = configFromEnv(process.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message, EXIT_USAGE);
    throw error;
  }
  if (!config.redisUrl) throw new CliError("WEFT_REDIS_URL is not set: a worker takes runs from the API's Redis queue (the API needs the same WEFT_REDIS_URL).", EXIT_USAGE);
  const concurrency = values.concurrency === undefined ? config.runConcurrency : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) throw new CliError(`--concurrency must be an integer from 1 to 256, got "${values.concurrency}".`, EXIT_USAGE);

  const agentConcurrency = slots("--agents", values.agents);
  const sceneConcurrency = slots("--scenes", values.scenes);

  const log = createLogger("weft-worker");
  const worker = await startWorkerProcess({
    dataDir: config.dataDir,
    redisUrl: config.redisUrl,
    ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
    dbPoolSize: config.dbPoolSize,
    ...(config.secret ? { secret: config.secret } : {}),
    ...(config.examplesDir ? { examplesDir: config.examplesDir } : {}),
    projectDir: config.projectDir,
    demoLlm: config.demoLlm,
    maxOutputBytes: config.maxOutputBytes,
    concurrency,
    ...(agentConcurrency !== undefined ? { agentConcurrency } : {}),
    ...(sceneConcurrency !== undefined ? { sceneConcurrency } : {}),
    ...(lockMs(process.env) !== undefined ? { lockMs: lockMs(process.env) } : {}),
    ...(process.env.WEFT_SHUTDOWN_GRACE_MS ? { shutdownGraceMs: config.shutdownGraceMs } : {}),
    ...(config.workerMetricsPort !== undefined ? { metricsPort: config.workerMetricsPort, metricsHostname: config.hostname } : {}),
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    ...(config.authToken ? { authToken: config.authToken } : {}),
    logger: log,
  });
  process.stdout.write(`weft worker ${worker.id} is taking runs (concurrency ${concurrency})\n`);
  if (worker.metricsUrl) process.stdout.write(`weft worker metrics: ${worker.metricsUrl}/metrics, health: ${worker.metricsUrl}/healthz\n`);

  return await new Promise<number>((resolve) => {
    let signals = 0;
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      process.on(signal, () => {
        signals++;
        if (signals > 1) {
          process.stderr.write("weft worker: second signal, exiting without waiting for runs to finish.\n");
          process.exit(1);
        }
        process.stdout.write(`weft worker: ${signal}, finishing running runs, then stopping…\n`);
        worker.stop().then(
          () => resolve(0),
          (error: unknown) => {
            log.error("worker shutdown failed", { error: messageOf(error) });
            resolve(1);
          },
        );
      });
    }
  });
}
