/**
 * `bun run bench:webhook`: a real server (child process, SQLite) answering a webhook in wait mode: the request is
 * verified (HMAC of `timestamp.body`, each signature stored once), runs `trigger:webhook → get-path → text-template →
 * output`, and the answer carries the workflow's output. Prints one JSON line for `"mode": "embedded"`:
 *   executions_per_s — 32 senders in parallel, each sending its next request when the last is answered
 *   p50_ms / p99_ms   — latency of requests sent at a steady 200 requests/s (BENCH_WEBHOOK_SECONDS, default 10 s)
 *   storage_bytes_per_execution — the database's growth (file and WAL, after a clean stop) per execution
 *   server_cpu_ms_per_execution — the server process's CPU time (user + system, /proc) per execution of the throughput
 *                                 part: what a request costs, less swayed than the rates by a busy machine
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnServer, type ChildServer } from "../apps/backend/src/testing/child-server.ts";
import { removeDir, tempDir } from "../apps/backend/src/testing/test-server.ts";
import { hookWorkflow, signedHeaders } from "../apps/backend/src/testing/webhooks.ts";

const THROUGHPUT_REQUESTS = Number(process.env.BENCH_WEBHOOK_REQUESTS ?? 2000);
const PARALLEL = 32;
const RATE = 200;
const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 10);

/** The answer the bench expects: the workflow completed with its greeting. */
function checkAnswer(answer: unknown): void {
  const a = answer as { status?: unknown; outputs?: { greeting?: unknown } };
  if (a.status !== "completed" || a.outputs?.greeting !== "Hello bench") throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function databaseBytes(dataDir: string): number {
  return readdirSync(dataDir)
    .filter((name) => name.startsWith("weft.sqlite"))
    .reduce((sum, name) => sum + statSync(join(dataDir, name)).size, 0);
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

async function main(): Promise<void> {
  const dataDir = tempDir("weft-bench-webhook-");
  let server = await spawnServer(dataDir, { WEFT_DATA_DIR: dataDir, WEFT_DEMO_LLM: "off", WEFT_RUN_CONCURRENCY: "32" });
  try {
    const workflow = hookWorkflow("bench-hook", { path: "in", response: "wait", ratePerMinute: 100_000, waitTimeoutMs: 60_000 });
    if ((await server.call("POST", "/api/workflows", { workflow })).status !== 201) throw new Error("the workflow was not saved");
    const activated = (await server.call("PUT", "/api/workflows/bench-hook/active", { active: true })).body as { secrets?: { secret: string }[] };
    const secret = activated.secrets?.[0]?.secret;
    if (secret === undefined) throw new Error(`activation showed no secret: ${JSON.stringify(activated)}`);
    let n = 0;
    for (let i = 0; i < 50; i++) await send(server, secret, n++); // warm-up

    // Restarted, so the storage measured is the executions' alone (the start's own writes settled).
    server.proc.kill("SIGTERM");
    await server.proc.exited;
    const bytesBefore = databaseBytes(dataDir);
    server = await spawnServer(dataDir, { WEFT_DATA_DIR: dataDir, WEFT_DEMO_LLM: "off", WEFT_RUN_CONCURRENCY: "32" });

    let next = 0;
    const cpuBefore = cpuMs(server.proc.pid);
    const started = performance.now();
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next < THROUGHPUT_REQUESTS) {
          next++;
          await send(server, secret, n++);
        }
      }),
    );
    const throughputMs = performance.now() - started;
    const cpuAfter = cpuMs(server.proc.pid);

    // A steady 200 requests/s, each sent on its own schedule whether or not earlier ones were answered.
    const latencies: number[] = [];
    const total = RATE * SECONDS;
    const t0 = performance.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await Bun.sleep(wait);
      pending.push(send(server, secret, n++).then((ms) => void latencies.push(ms)));
    }
    await Promise.all(pending);
    latencies.sort((a, b) => a - b);

    server.proc.kill("SIGTERM");
    await server.proc.exited;
    const executions = THROUGHPUT_REQUESTS + total;
    const bytesAfter = databaseBytes(dataDir);
    console.log(
      JSON.stringify({
        bench: "webhook",
        mode: "embedded",
        workflow_nodes: 3,
        executions_per_s: Math.round(THROUGHPUT_REQUESTS / (throughputMs / 1000)),
        parallel: PARALLEL,
        rate_per_s: RATE,
        requests_at_rate: total,
        p50_ms: Number(percentile(latencies, 50).toFixed(2)),
        p99_ms: Number(percentile(latencies, 99).toFixed(2)),
        storage_bytes_per_execution: Math.round((bytesAfter - bytesBefore) / executions),
        server_cpu_ms_per_execution: cpuBefore === undefined || cpuAfter === undefined ? null : Number(((cpuAfter - cpuBefore) / THROUGHPUT_REQUESTS).toFixed(3)),
      }),
    );
  } finally {
    server.proc.kill("SIGKILL");
    await server.proc.exited;
    removeDir(dataDir);
  }
}

await main();
