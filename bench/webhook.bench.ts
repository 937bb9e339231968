/**
 * `bun run bench:webhook`: a real server (child process) answering a webhook in wait mode: the request is verified
 * (HMAC of `timestamp.body`, each signature stored once), runs `trigger:webhook → get-path → text-template → output`,
 * and the answer carries the workflow's output. Prints one JSON line per mode (BENCH_WEBHOOK_MODES, default both):
 *   "embedded" — one API process on SQLite, runs executed in it;
 *   "queue"    — one API process taking the requests and 2 `weft worker` processes executing the runs, on a real
 *                PostgreSQL and Redis started for the bench (the queue tests' helpers).
 * Fields:
 *   executions_per_s — 32 senders in parallel, each sending its next request when the last is answered
 *   p50_ms / p99_ms   — latency of requests sent at a steady 200 requests/s (BENCH_WEBHOOK_SECONDS, default 10 s)
 *   storage_bytes_per_execution — the database's growth per execution: SQLite's file and WAL after a clean stop;
 *                                 PostgreSQL's pg_database_size (tables and indexes, not its WAL)
 *   server_cpu_ms_per_execution — the Weft processes' CPU time (user + system, /proc; the API process and, in queue mode,
 *                                 the workers) per execution of the throughput part: what a request costs, less swayed
 *                                 than the rates by a busy machine (the bench's own load generator is not counted)
 *   api_cpu_ms_per_execution / workers_cpu_ms_per_execution — that CPU time split by process (queue mode)
 *   postgres_cpu_ms_per_execution — PostgreSQL's (the postmaster and its children, live and ended) in queue mode
 */
import { SQL } from "bun";
import { readdirSync, readFileSync } from "node:fs";
import { spawnServer, type ChildServer } from "../apps/backend/src/testing/child-server.ts";
import { removeDir, tempDir } from "../apps/backend/src/testing/test-server.ts";
import { databaseBytes } from "./support/database-bytes.ts";
import { hookWorkflow, signedHeaders } from "../apps/backend/src/testing/webhooks.ts";
import { startRedis } from "../apps/backend/src/testing/redis-server.ts";
import { spawnWorker, type ChildWorker } from "../apps/backend/src/queue/testing/child-worker.ts";
import { queueTestDatabase } from "../apps/backend/src/queue/testing/queue-test-database.ts";

const THROUGHPUT_REQUESTS = Number(process.env.BENCH_WEBHOOK_REQUESTS ?? 2000);
const PARALLEL = 32;
const RATE = 200;
const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 10);
const MODES = (process.env.BENCH_WEBHOOK_MODES ?? "embedded,queue").split(",");
const WORKERS = 2;

/** The answer the bench expects: the workflow completed with its greeting. */
function checkAnswer(answer: unknown): void {
  const a = answer as { status?: unknown; outputs?: { greeting?: unknown } };
  if (a.status !== "completed" || a.outputs?.greeting !== "Hello bench") throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** CPU time (user + system) the process has used so far, in ms, from /proc (undefined where there is none). */
function cpuMs(pid: number): number | undefined {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in clock ticks (100/s).
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** One signed request (a new timestamp-body pair each: `n` makes every body, so every signature, unique). */
async function send(server: ChildServer, secret: string, n: number): Promise<number> {
  const body = JSON.stringify({ name: "bench", n });
  const started = performance.now();
  const res = await fetch(`${server.url}/hooks/bench-hook/in`, { method: "POST", body, headers: signedHeaders(secret, body) });
  const answer: unknown = await res.json();
  if (res.status !== 200) throw new Error(`hook answered ${res.status}: ${JSON.stringify(answer)}`);
  checkAnswer(answer);
  return performance.now() - started;
}

/** A process's parent id, from /proc (undefined where there is none). */
function parentOf(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1]);
  } catch {
    return undefined;
  }
}

/** CPU time of a PostgreSQL cluster, in ms: the postmaster's, its ended children's (reaped: cutime, cstime) and its live children's. */
function clusterCpuMs(postmaster: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${postmaster}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    let ms = (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10;
    for (const entry of readdirSync("/proc")) {
      const pid = Number(entry);
      if (Number.isInteger(pid) && parentOf(pid) === postmaster) ms += cpuMs(pid) ?? 0;
    }
    return ms;
  } catch {
    return undefined;
  }
}

/** The processes under test: where requests go, whose CPU counts, how big the database is, and how to stop them. */
interface Target {
  server: ChildServer;
  pids(): number[];
  /** The API process's CPU, the workers' and the database's, in ms (queue mode). */
  split?(): { api?: number; workers?: number; postgres?: number };
  storageBytes(): Promise<number>;
  /** Called once the warm-up is done: settles what starting wrote (embedded: a clean restart). */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

const totalCpu = (pids: number[]): number | undefined => {
  const each = pids.map(cpuMs);
  return each.some((ms) => ms === undefined) ? undefined : each.reduce((sum: number, ms) => sum + (ms ?? 0), 0);
};

async function embedded(): Promise<Target> {
  const dataDir = tempDir("weft-bench-webhook-");
  const env = { WEFT_DATA_DIR: dataDir, WEFT_DEMO_LLM: "off", WEFT_RUN_CONCURRENCY: "32" };
  const target: Target = {
    server: await spawnServer(dataDir, env),
    pids: () => [target.server.proc.pid],
    storageBytes: async () => databaseBytes(dataDir),
    // Restarted, so the storage measured is the executions' alone (the start's own writes settled).
    settle: async () => {
      target.server.proc.kill("SIGTERM");
      await target.server.proc.exited;
      target.server = await spawnServer(dataDir, env);
    },
    stop: async () => {
      target.server.proc.kill("SIGTERM");
      await target.server.proc.exited;
      removeDir(dataDir);
    },
  };
  return target;
}

async function queue(): Promise<Target> {
  const redis = await startRedis();
  const database = await queueTestDatabase();
  const dataDir = tempDir("weft-bench-webhook-queue-");
  const env = { WEFT_REDIS_URL: redis.url, WEFT_DATA_DIR: dataDir, WEFT_DEMO_LLM: "off", WEFT_LOG_LEVEL: "warn", ...database.env };
  const server = await spawnServer(dataDir, env);
  const workers: ChildWorker[] = [];
  for (let i = 0; i < WORKERS; i++) workers.push(await spawnWorker(env, ["--concurrency", "16"]));
  const url = database.env.WEFT_DATABASE_URL;
  const sql = url === undefined ? undefined : new SQL(url);
  const backend = sql ? Number((await sql`SELECT pg_backend_pid() AS pid`)[0].pid) : undefined;
  const postmaster = backend === undefined ? undefined : parentOf(backend);
  return {
    server,
    pids: () => [server.proc.pid, ...workers.map((w) => w.proc.pid)],
    split: () => ({
      api: cpuMs(server.proc.pid),
      workers: totalCpu(workers.map((w) => w.proc.pid)),
      postgres: postmaster === undefined ? undefined : clusterCpuMs(postmaster),
    }),
    storageBytes: async () => (sql ? Number((await sql`SELECT pg_database_size(current_database()) AS size`)[0].size) : databaseBytes(dataDir)),
    settle: async () => undefined,
    stop: async () => {
      await sql?.close();
      for (const p of [server.proc, ...workers.map((w) => w.proc)]) p.kill("SIGTERM");
      await Promise.all([server.proc.exited, ...workers.map((w) => w.proc.exited)]);
      await redis.stop();
      await database.stop();
      removeDir(dataDir);
    },
  };
}

async function measure(mode: "embedded" | "queue"): Promise<void> {
  const target = mode === "embedded" ? await embedded() : await queue();
  try {
    const workflow = hookWorkflow("bench-hook", { path: "in", response: "wait", ratePerMinute: 100_000, waitTimeoutMs: 60_000 });
    if ((await target.server.call("POST", "/api/workflows", { workflow })).status !== 201) throw new Error("the workflow was not saved");
    const activated = (await target.server.call("PUT", "/api/workflows/bench-hook/active", { active: true })).body as { secrets?: { secret: string }[] };
    const secret = activated.secrets?.[0]?.secret;
    if (secret === undefined) throw new Error(`activation showed no secret: ${JSON.stringify(activated)}`);
    let n = 0;
    for (let i = 0; i < 50; i++) await send(target.server, secret, n++); // warm-up
    await target.settle();
    const bytesBefore = await target.storageBytes();

    let next = 0;
    const cpuBefore = totalCpu(target.pids());
    const splitBefore = target.split?.();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next < THROUGHPUT_REQUESTS) {
          next++;
          await send(target.server, secret, n++);
        }
      }),
    );
    const throughputMs = performance.now() - started;
    const cpuAfter = totalCpu(target.pids());
    const splitAfter = target.split?.();
    const perExecution = (key: "api" | "workers" | "postgres") => {
      const before = splitBefore?.[key];
      const after = splitAfter?.[key];
      return before === undefined || after === undefined ? null : Number(((after - before) / THROUGHPUT_REQUESTS).toFixed(3));
    };

    // A steady 200 requests/s, each sent on its own schedule whether or not earlier ones were answered.
    const latencies: number[] = [];
    const total = RATE * SECONDS;
    const t0 = performance.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await Bun.sleep(wait);
      pending.push(send(target.server, secret, n++).then((ms) => void latencies.push(ms)));
    }
    await Promise.all(pending);
    latencies.sort((a, b) => a - b);

    const executions = THROUGHPUT_REQUESTS + total;
    if (mode === "embedded") {
      // SQLite's file and WAL are measured after a clean stop (the WAL checkpointed).
      target.server.proc.kill("SIGTERM");
      await target.server.proc.exited;
    }
    const bytesAfter = await target.storageBytes();
    console.log(
      JSON.stringify({
        bench: "webhook",
        mode,
        ...(mode === "queue" ? { workers: WORKERS } : {}),
        workflow_nodes: 3,
        executions_per_s: Math.round(THROUGHPUT_REQUESTS / (throughputMs / 1000)),
        parallel: PARALLEL,
        rate_per_s: RATE,
        requests_at_rate: total,
        p50_ms: Number(percentile(latencies, 50).toFixed(2)),
        p99_ms: Number(percentile(latencies, 99).toFixed(2)),
        storage_bytes_per_execution: Math.round((bytesAfter - bytesBefore) / executions),
        server_cpu_ms_per_execution: cpuBefore === undefined || cpuAfter === undefined ? null : Number(((cpuAfter - cpuBefore) / THROUGHPUT_REQUESTS).toFixed(3)),
        ...(mode === "queue" ? { api_cpu_ms_per_execution: perExecution("api"), workers_cpu_ms_per_execution: perExecution("workers"), postgres_cpu_ms_per_execution: perExecution("postgres") } : {}),
      }),
    );
  } finally {
    await target.stop();
  }
}

for (const mode of MODES) {
  if (mode !== "embedded" && mode !== "queue") throw new Error(`BENCH_WEBHOOK_MODES: "${mode}" is not a mode; use embedded, queue or both (comma-separated).`);
  await measure(mode);
}
