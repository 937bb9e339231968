import { resolve } from "node:path";
import { z } from "zod";

const positiveInt = z.coerce.number().int().positive();

/** Settings read from the environment by `main.ts` (tests pass options to `createServer` directly). */
const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  WEFT_HOST: z.string().min(1).default("127.0.0.1"),
  WEFT_DATA_DIR: z.string().min(1).default("data"),
  // Unset or empty: SQLite in the data folder. The URL is never echoed back in an error (it may hold a password).
  WEFT_DATABASE_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === "" || /^postgres(ql)?:\/\//.test(v), { message: "must be a postgres:// or postgresql:// URL" }),
  // PostgreSQL connections this process may open (API or worker): processes × this must fit max_connections.
  WEFT_DB_POOL_SIZE: positiveInt.max(1000).default(10),
  // Set: queue mode (runs go to BullMQ, `weft worker` processes execute them). Never echoed back either.
  WEFT_REDIS_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === "" || /^rediss?:\/\//.test(v), { message: "must be a redis:// or rediss:// URL" }),
  WEFT_SECRET: z.string().optional(),
  WEFT_AUTH_TOKEN: z.string().optional(),
  WEFT_ALLOWED_HOSTS: z.string().optional(),
  WEFT_ALLOWED_ORIGINS: z.string().optional(),
  WEFT_EXAMPLES_DIR: z.string().min(1).optional(),
  // Beside data/, not inside it: the data folder holds the master key, out of the tools' reach.
  WEFT_PROJECT_DIR: z.string().min(1).default("project"),
  WEFT_RUN_CONCURRENCY: positiveInt.max(256).default(4),
  WEFT_MAX_QUEUED_RUNS: positiveInt.default(10_000),
  WEFT_MAX_BODY_BYTES: positiveInt.default(5 * 1024 * 1024),
  WEFT_MAX_OUTPUT_BYTES: positiveInt.max(Number.MAX_SAFE_INTEGER).default(8 * 1024 * 1024),
  WEFT_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(5000),
  WEFT_APPROVAL_SWEEP_MS: positiveInt.max(3_600_000).default(1000),
  WEFT_V1_CONCURRENCY: positiveInt.max(10_000).default(8),
  WEFT_DEMO_LLM: z.enum(["on", "off"]).default("on"),
  // `weft worker` only: its own /metrics and /healthz listener. Empty counts as unset (not as port 0, a random one).
  WEFT_WORKER_METRICS_PORT: z.preprocess((v) => (v === "" ? undefined : v), z.coerce.number().int().min(0).max(65535).optional()),
  // The editor's address as users open it (behind a proxy, another host): links to runs (an error workflow's `link`) start with it.
  WEFT_PUBLIC_URL: z.url({ protocol: /^https?$/, error: "WEFT_PUBLIC_URL must be an http(s) URL, e.g. https://weft.example.com" }).optional(),
});

export interface EnvConfig {
  port: number;
  hostname: string;
  dataDir: string;
  /** WEFT_DATABASE_URL: PostgreSQL instead of SQLite. */
  databaseUrl?: string;
  /** WEFT_DB_POOL_SIZE: PostgreSQL connections per process (ignored on SQLite). */
  dbPoolSize: number;
  /** WEFT_REDIS_URL: queue mode. */
  redisUrl?: string;
  secret?: string;
  authToken?: string;
  allowedHosts: string[];
  allowedOrigins: string[];
  examplesDir?: string;
  projectDir: string;
  runConcurrency: number;
  maxQueuedRuns: number;
  maxBodyBytes: number;
  /** WEFT_MAX_OUTPUT_BYTES: the most one node may return (its outputs as JSON, about). */
  maxOutputBytes: number;
  shutdownGraceMs: number;
  /** WEFT_APPROVAL_SWEEP_MS: how often approvals' deadlines are swept (ms). */
  approvalSweepMs: number;
  /** WEFT_V1_CONCURRENCY: chat completions one user may have in flight at once on /v1/chat/completions, per API process. */
  v1Concurrency: number;
  demoLlm: boolean;
  /** WEFT_WORKER_METRICS_PORT: a worker's metrics listener (0: a free port). */
  workerMetricsPort?: number;
  /** WEFT_PUBLIC_URL: the editor's address, for links to runs. */
  publicUrl?: string;
}

export class ConfigError extends Error {
  readonly code = "INVALID_CONFIG";
}

/** A comma-separated setting as its non-empty entries. */
function list(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
}

export function configFromEnv(env: Record<string, string | undefined>): EnvConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid environment:\n  ${lines.join("\n  ")}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    hostname: e.WEFT_HOST,
    dataDir: resolve(e.WEFT_DATA_DIR),
    ...(e.WEFT_DATABASE_URL ? { databaseUrl: e.WEFT_DATABASE_URL } : {}),
    dbPoolSize: e.WEFT_DB_POOL_SIZE,
    ...(e.WEFT_REDIS_URL ? { redisUrl: e.WEFT_REDIS_URL } : {}),
    ...(e.WEFT_SECRET ? { secret: e.WEFT_SECRET } : {}),
    ...(e.WEFT_AUTH_TOKEN ? { authToken: e.WEFT_AUTH_TOKEN } : {}),
    allowedHosts: list(e.WEFT_ALLOWED_HOSTS),
    allowedOrigins: list(e.WEFT_ALLOWED_ORIGINS),
    ...(e.WEFT_EXAMPLES_DIR ? { examplesDir: resolve(e.WEFT_EXAMPLES_DIR) } : {}),
    projectDir: resolve(e.WEFT_PROJECT_DIR),
    runConcurrency: e.WEFT_RUN_CONCURRENCY,
    maxQueuedRuns: e.WEFT_MAX_QUEUED_RUNS,
    maxBodyBytes: e.WEFT_MAX_BODY_BYTES,
    maxOutputBytes: e.WEFT_MAX_OUTPUT_BYTES,
    shutdownGraceMs: e.WEFT_SHUTDOWN_GRACE_MS,
    approvalSweepMs: e.WEFT_APPROVAL_SWEEP_MS,
    v1Concurrency: e.WEFT_V1_CONCURRENCY,
    demoLlm: e.WEFT_DEMO_LLM === "on",
    ...(e.WEFT_WORKER_METRICS_PORT !== undefined ? { workerMetricsPort: e.WEFT_WORKER_METRICS_PORT } : {}),
    ...(e.WEFT_PUBLIC_URL ? { publicUrl: e.WEFT_PUBLIC_URL } : {}),
  };
}
