/**
 * Queue-mode benchmark (issue 19): a temporary PostgreSQL and Redis, an API process, then 1 and 2
 * `weft worker` processes, against the same API and database without Redis (runs in the API
 * process: the baseline). Each configuration gets a fresh database and runs three cases:
 *   short   2,000 one-template runs submitted at once (64 requests in flight): throughput, and how
 *           long runs waited (started_at − created_at) with a backlog
 *   delay   400 runs of one `core:delay` of 50 ms (I/O-bound): throughput, for the 2-vs-1 worker scaling
 *   serial  200 short runs one after another: what dispatch adds to a run when nothing waits
 *           (the "≤ 5 ms at p50 over in-process" comparison; its runs_per_s is bounded by the bench's
 *           2 ms polling for each run's end, so read only its queue and run times)
 * Times come from the run records the processes wrote (created_at by the API, started_at and
 * finished_at by whoever ran it), read from the database. BENCH_QUEUE_DB=sqlite shares one SQLite file
 * between the processes instead of PostgreSQL (one machine only; the queue tests' fallback too). Every process runs `--concurrency 4`
 * (WEFT_RUN_CONCURRENCY=4 in-process). Prints one JSON line per configuration and case:
 *   {"bench":"queue","case":…,"mode":…,"workers":W,"runs":N,"runs_per_s":X,"p50_queue_ms":Y,"p99_queue_ms":Z,…}
 *
 *   bun run bench:queue            (BENCH_QUEUE_SHORT / _DELAY / _SERIAL change the run counts)
 */
import { SQL } from "bun";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import type { WorkflowInput } from "../packages/types/src/index.ts";
import { startRedis, type TestRedis } from "../apps/backend/src/testing/redis-server.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../apps/backend/src/testing/postgres-server.ts";
import { spawnServer, type ChildServer } from "../apps/backend/src/testing/child-server.ts";
import { spawnWorker, type ChildWorker } from "../apps/backend/src/queue/testing/child-worker.ts";
import { removeDir, slowWorkflow, templateWorkflow, tempDir } from "../apps/backend/src/testing/test-server.ts";

const SHORT_RUNS = Number(process.env.BENCH_QUEUE_SHORT ?? 2000);
const DELAY_RUNS = Number(process.env.BENCH_QUEUE_DELAY ?? 400);
const SERIAL_RUNS = Number(process.env.BENCH_QUEUE_SERIAL ?? 200);
const DELAY_MS = 50;
const CONCURRENCY = 4;
const IN_FLIGHT = 64;
const FINISHED = ["completed", "failed", "cancelled", "interrupted"];

interface RunTimes {
  status: string;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
}

interface Config {
  mode: "in-process" | "queue";
  workers: number;
}

const round = (n: number) => Math.round(n * 100) / 100;

function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function submit(api: ChildServer, workflowId: string, inputs: (i: number) => Record<string, unknown>, count: number): Promise<void> {
  let next = 0;
  const client = async () => {
    while (next < count) {
      const i = next++;
      const res = await api.call("POST", `/api/workflows/${workflowId}/runs`, { inputs: inputs(i) });
      if (res.status !== 202) throw new Error(`run ${i} of ${workflowId} refused: ${res.status} ${JSON.stringify(res.body)}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, count) }, client));
}

/** The run records, straight from the database the processes share. */
interface RunsReader {
  ended(workflowId: string): Promise<number>;
  /** Event and observation rows stored for the workflow's runs. */
  rowsOf(workflowId: string): Promise<{ events: number; observations: number }>;
  /** PostgreSQL only: commits and row changes so far in this database (pg_stat_database). */
  activity(): Promise<Record<string, number> | undefined>;
  rows(workflowId: string): Promise<RunTimes[]>;
  forget(workflowId: string): Promise<void>;
  close(): Promise<void>;
}

const FINISHED_SQL = FINISHED.map((s) => `'${s}'`).join(", ");

function postgresReader(url: string): RunsReader {
  const sql = new SQL(url);
  return {
    ended: async (id) => ((await sql.unsafe(`SELECT count(*)::int AS n FROM runs WHERE workflow_id = $1 AND status IN (${FINISHED_SQL})`, [id])) as { n: number }[])[0].n,
    rows: async (id) => (await sql.unsafe("SELECT status, created_at, started_at, finished_at FROM runs WHERE workflow_id = $1", [id])) as RunTimes[],
    rowsOf: async (id) => {
      const [row] = (await sql.unsafe(
        "SELECT (SELECT count(*)::int FROM events WHERE stream_id IN (SELECT id FROM runs WHERE workflow_id = $1)) AS events, (SELECT count(*)::int FROM observations WHERE run_id IN (SELECT id FROM runs WHERE workflow_id = $1)) AS observations",
        [id],
      )) as { events: number; observations: number }[];
      return row;
    },
    activity: async () => {
      // A backend reports its statistics to pg_stat_database once idle for 10 s (PostgreSQL 15's PGSTAT_IDLE_INTERVAL).
      await Bun.sleep(11_000);
      await sql.unsafe("SELECT pg_stat_clear_snapshot()");
      const [row] = (await sql.unsafe(
        "SELECT xact_commit::float8 AS commits, tup_inserted::float8 AS inserted, tup_updated::float8 AS updated, tup_deleted::float8 AS deleted, pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8 AS wal FROM pg_stat_database WHERE datname = current_database()",
      )) as Record<string, number>[];
      return row;
    },
    forget: async (id) => {
      await sql.unsafe("DELETE FROM runs WHERE workflow_id = $1", [id]);
    },
    close: () => sql.close(),
  };
}

function sqliteReader(file: string): RunsReader {
  const db = new Database(file);
  db.exec("PRAGMA busy_timeout = 5000");
  return {
    ended: async (id) => (db.query(`SELECT count(*) AS n FROM runs WHERE workflow_id = ? AND status IN (${FINISHED_SQL})`).get(id) as { n: number }).n,
    rows: async (id) => db.query("SELECT status, created_at, started_at, finished_at FROM runs WHERE workflow_id = ?").all(id) as RunTimes[],
    rowsOf: async (id) =>
      db
        .query(
          "SELECT (SELECT count(*) FROM events WHERE stream_id IN (SELECT id FROM runs WHERE workflow_id = ?1)) AS events, (SELECT count(*) FROM observations WHERE run_id IN (SELECT id FROM runs WHERE workflow_id = ?1)) AS observations",
        )
        .get(id) as { events: number; observations: number },
    activity: async () => undefined,
    forget: async (id) => {
      db.query("DELETE FROM runs WHERE workflow_id = ?").run(id);
    },
    close: async () => db.close(),
  };
}

/** Redis commands executed so far (INFO commandstats; commands run inside BullMQ's Lua scripts count too), and script calls. */
function redisCommands(url: string): { commands: number; scripts: number; publishes: number } {
  const text = Bun.spawnSync(["redis-cli", "-u", url, "INFO", "commandstats"]).stdout.toString();
  let commands = 0;
  let scripts = 0;
  let publishes = 0;
  for (const match of text.matchAll(/^cmdstat_([a-z|_-]+):calls=(\d+)/gm)) {
    const calls = Number(match[2]);
    if (match[1] === "info") continue;
    commands += calls;
    if (match[1] === "evalsha" || match[1] === "eval") scripts += calls;
    if (match[1] === "publish") publishes += calls;
  }
  return { commands, scripts, publishes };
}

/** Waits until `count` runs of the workflow have ended; returns their records. */
async function finishedRuns(reader: RunsReader, workflowId: string, count: number, timeoutMs: number, pollMs = 50): Promise<RunTimes[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const n = await reader.ended(workflowId);
    if (n >= count) break;
    if (Date.now() > deadline) throw new Error(`only ${n} of ${count} runs of ${workflowId} ended within ${timeoutMs} ms`);
    await Bun.sleep(pollMs);
  }
  const rows = await reader.rows(workflowId);
  return rows.map((r) => ({
    status: r.status,
    created_at: Number(r.created_at),
    started_at: r.started_at === null ? null : Number(r.started_at),
    finished_at: r.finished_at === null ? null : Number(r.finished_at),
  }));
}

function summary(config: Config, caseName: string, runs: RunTimes[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  const started = runs.filter((r) => r.started_at !== null && r.finished_at !== null);
  const waits = started.map((r) => (r.started_at as number) - r.created_at);
  const totals = started.map((r) => (r.finished_at as number) - r.created_at);
  const first = Math.min(...runs.map((r) => r.created_at));
  const last = Math.max(...started.map((r) => r.finished_at as number));
  return {
    bench: "queue",
    case: caseName,
    mode: config.mode,
    workers: config.workers,
    runs: runs.length,
    completed: runs.filter((r) => r.status === "completed").length,
    runs_per_s: round(runs.length / ((last - first) / 1000)),
    p50_queue_ms: round(quantile(waits, 0.5)),
    p99_queue_ms: round(quantile(waits, 0.99)),
    p50_run_ms: round(quantile(totals, 0.5)),
    ...extra,
  };
}

async function measure(config: Config, cluster: TestPostgres | undefined, redis: TestRedis): Promise<Record<string, unknown>[]> {
  const databaseUrl = cluster ? await createTestDatabase(cluster.url) : undefined;
  const dataDir = tempDir("weft-bench-queue-");
  const env: Record<string, string> = {
    ...(databaseUrl ? { WEFT_DATABASE_URL: databaseUrl } : {}),
    WEFT_DEMO_LLM: "off",
    WEFT_RUN_CONCURRENCY: String(CONCURRENCY),
    WEFT_LOG_LEVEL: "warn",
    ...(config.mode === "queue" ? { WEFT_REDIS_URL: redis.url } : {}),
  };
  const api = await spawnServer(dataDir, env);
  const reader = databaseUrl ? postgresReader(databaseUrl) : sqliteReader(join(dataDir, "weft.sqlite"));
  const workers: ChildWorker[] = [];
  try {
    for (let i = 0; i < config.workers; i++) workers.push(await spawnWorker({ ...env, WEFT_DATA_DIR: dataDir, WEFT_LOG_LEVEL: "warn" }, ["--concurrency", String(CONCURRENCY)]));
    const workflows: WorkflowInput[] = [templateWorkflow("short"), templateWorkflow("serial"), slowWorkflow("delay", DELAY_MS)];
    for (const workflow of workflows) {
      const res = await api.call("POST", "/api/workflows", { workflow });
      if (res.status >= 300) throw new Error(`creating ${workflow.id} failed: ${res.status}`);
    }
    // Warm up: the first runs pay for compiling, connections and caches on each side.
    await submit(api, "serial", (i) => ({ topic: `warm ${i}` }), 20);
    await finishedRuns(reader, "serial", 20, 60_000);
    await reader.forget("serial");

    const lines: Record<string, unknown>[] = [];
    const redisBefore = config.mode === "queue" ? redisCommands(redis.url) : undefined;
    const dbBefore = await reader.activity();
    const t0 = performance.now();
    await submit(api, "short", (i) => ({ topic: `t${i}` }), SHORT_RUNS);
    const submitMs = performance.now() - t0;
    const shortRuns = await finishedRuns(reader, "short", SHORT_RUNS, 300_000);
    const redisAfter = config.mode === "queue" ? redisCommands(redis.url) : undefined;
    const dbAfter = await reader.activity();
    const rows = await reader.rowsOf("short");
    const perRun = (after: number, before: number) => round((after - before) / SHORT_RUNS);
    lines.push(
      summary(config, "short", shortRuns, {
        submit_per_s: round(SHORT_RUNS / (submitMs / 1000)),
        events_per_run: round(rows.events / SHORT_RUNS),
        observations_per_run: round(rows.observations / SHORT_RUNS),
        ...(redisBefore && redisAfter
          ? {
              redis_commands_per_run: perRun(redisAfter.commands, redisBefore.commands),
              redis_scripts_per_run: perRun(redisAfter.scripts, redisBefore.scripts),
              redis_publishes_per_run: perRun(redisAfter.publishes, redisBefore.publishes),
            }
          : {}),
        ...(dbBefore && dbAfter
          ? {
              // Every autocommit statement is a transaction: reads (the bench's own polling too) are counted here.
              db_transactions_per_run: perRun(dbAfter.commits, dbBefore.commits),
              db_wal_bytes_per_run: Math.round((dbAfter.wal - dbBefore.wal) / SHORT_RUNS),
              db_rows_inserted_per_run: perRun(dbAfter.inserted, dbBefore.inserted),
              db_rows_updated_per_run: perRun(dbAfter.updated, dbBefore.updated),
              db_rows_deleted_per_run: perRun(dbAfter.deleted, dbBefore.deleted),
            }
          : {}),
      }),
    );

    await submit(api, "delay", () => ({}), DELAY_RUNS);
    lines.push(summary(config, "delay", await finishedRuns(reader, "delay", DELAY_RUNS, 300_000), { delay_ms: DELAY_MS, slots: config.mode === "queue" ? config.workers * CONCURRENCY : CONCURRENCY }));

    for (let i = 0; i < SERIAL_RUNS; i++) {
      await submit(api, "serial", () => ({ topic: `s${i}` }), 1);
      await finishedRuns(reader, "serial", i + 1, 30_000, 2);
    }
    lines.push(summary(config, "serial", await finishedRuns(reader, "serial", SERIAL_RUNS, 30_000)));
    return lines;
  } finally {
    for (const w of workers) w.proc.kill("SIGTERM");
    api.proc.kill("SIGTERM");
    await Promise.all([...workers.map((w) => w.proc.exited), api.proc.exited]);
    await reader.close();
    removeDir(dataDir);
  }
}

const engine = process.env.BENCH_QUEUE_DB === "sqlite" ? "sqlite" : "postgres";
const cluster = engine === "postgres" ? await startPostgres() : undefined;
const redis = await startRedis();
try {
  const configs: Config[] = [
    { mode: "in-process", workers: 0 },
    { mode: "queue", workers: 1 },
    { mode: "queue", workers: 2 },
  ];
  for (const config of configs) {
    for (const line of await measure(config, cluster, redis)) console.log(JSON.stringify({ ...line, database: engine }));
    await Bun.sleep(500);
  }
} finally {
  await redis.stop();
  await cluster?.stop();
}
