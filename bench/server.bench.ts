/**
 * `bun run bench:server`: the API server (a real child process) measured on loopback.
 * Prints one JSON line per case:
 *   run-start  — POST /api/workflows/:id/runs requests per second (32 clients in parallel)
 *   ws-delivery — a 10,000-node run watched by 10 WebSocket subscribers: every event delivered to every one, events/s
 *   get-run    — latency of GET /api/runs/:id (p50, p99)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnServer, type ChildServer } from "../apps/backend/src/testing/child-server.ts";
import { chainWorkflow, templateWorkflow, TEST_TOKEN } from "../apps/backend/src/testing/test-server.ts";
import { BunWebSocket } from "../apps/backend/src/testing/bun-websocket.ts";
import { RunStatusSchema, SeqPageSchema, StartedRunSchema } from "../apps/backend/src/testing/answers.ts";

const RUN_STARTS = 2000;
const PARALLEL = 32;
const NODES = 10_000;
const SUBSCRIBERS = 10;
const GETS = 2000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function must(server: ChildServer, method: string, path: string, body?: unknown, status = 200) {
  const res = await server.call(method, path, body);
  if (res.status !== status) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function waitRun(server: ChildServer, runId: string): Promise<void> {
  for (;;) {
    const { run } = RunStatusSchema.parse(await must(server, "GET", `/api/runs/${runId}`));
    if (!["queued", "running"].includes(run.status)) return;
    await Bun.sleep(50);
  }
}

async function runStarts(server: ChildServer): Promise<void> {
  await must(server, "POST", "/api/workflows", { workflow: templateWorkflow("bench-small") }, 201);
  let next = 0;
  const started = performance.now();
  const ids: string[] = [];
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < RUN_STARTS) {
        next++;
        const body = StartedRunSchema.parse(await must(server, "POST", "/api/workflows/bench-small/runs", { inputs: { topic: "bench" } }, 202));
        ids.push(body.runId);
      }
    }),
  );
  const ms = performance.now() - started;
  console.log(JSON.stringify({ bench: "server", case: "run-start", requests: ids.length, parallel: PARALLEL, ms: Math.round(ms), requests_per_s: Math.round(ids.length / (ms / 1000)) }));
  await waitRun(server, ids[ids.length - 1]);
}

async function wsDelivery(server: ChildServer): Promise<void> {
  await must(server, "POST", "/api/workflows", { workflow: chainWorkflow("bench-chain", NODES) }, 201);
  const sockets = await Promise.all(
    Array.from({ length: SUBSCRIBERS }, () => {
      const ws = new BunWebSocket(server.url.replace(/^http/, "ws") + "/ws", { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
      return new Promise<WebSocket>((resolve, reject) => {
        ws.onopen = () => resolve(ws);
        ws.onerror = () => reject(new Error("WebSocket failed"));
      });
    }),
  );
  const started = performance.now();
  const { runId } = StartedRunSchema.parse(await must(server, "POST", "/api/workflows/bench-chain/runs", {}, 202));
  const results = await Promise.all(
    sockets.map(
      (ws) =>
        new Promise<{ count: number; contiguous: boolean; ms: number }>((resolve, reject) => {
          let expected = 0;
          let contiguous = true;
          ws.onmessage = (e) => {
            const message = JSON.parse(String(e.data));
            if (message.type === "resync" || message.type === "error") reject(new Error(`subscriber got ${String(e.data)}`));
            if (message.type !== "event") return;
            if (message.event.seq !== expected) contiguous = false;
            expected = message.event.seq + 1;
            if (message.event.type === "run.completed" || message.event.type === "run.failed") resolve({ count: expected, contiguous, ms: performance.now() - started });
          };
          ws.send(JSON.stringify({ type: "subscribe", streamId: runId, after: -1 }));
        }),
    ),
  );
  const ms = Math.max(...results.map((r) => r.ms));
  const stored = SeqPageSchema.parse(await must(server, "GET", `/api/runs/${runId}/events?after=-1&limit=10000`));
  let total = stored.events.length;
  let after = stored.events.at(-1)?.seq ?? -1;
  for (let more = stored.hasMore; more;) {
    const page = SeqPageSchema.parse(await must(server, "GET", `/api/runs/${runId}/events?after=${after}&limit=10000`));
    total += page.events.length;
    after = page.events.at(-1)?.seq ?? after;
    more = page.hasMore;
  }
  const { run } = RunStatusSchema.parse(await must(server, "GET", `/api/runs/${runId}`));
  const allDelivered = results.every((r) => r.count === total && r.contiguous);
  for (const ws of sockets) ws.close();
  console.log(
    JSON.stringify({
      bench: "server",
      case: "ws-delivery",
      nodes: NODES,
      subscribers: SUBSCRIBERS,
      run_status: run.status,
      run_ms: Math.round(run.durationMs ?? NaN),
      events: total,
      delivered: results.reduce((n, r) => n + r.count, 0),
      all_delivered: allDelivered,
      ms: Math.round(ms),
      events_per_s: Math.round((total * SUBSCRIBERS) / (ms / 1000)),
    }),
  );
  if (!allDelivered) process.exitCode = 1;
}

async function getRunLatency(server: ChildServer): Promise<void> {
  const { runId } = StartedRunSchema.parse(await must(server, "POST", "/api/workflows/bench-small/runs", { inputs: { topic: "latency" } }, 202));
  await waitRun(server, runId);
  const times: number[] = [];
  for (let i = 0; i < GETS; i++) {
    const t0 = performance.now();
    const res = await fetch(`${server.url}/api/runs/${runId}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    await res.arrayBuffer();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 1000) / 1000;
  console.log(JSON.stringify({ bench: "server", case: "get-run", requests: GETS, p50_ms: round(percentile(times, 50)), p99_ms: round(percentile(times, 99)) }));
}

const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-"));
const server = await spawnServer(dataDir, { WEFT_EXAMPLES_DIR: dataDir, WEFT_MAX_QUEUED_RUNS: "100000" });
try {
  await runStarts(server);
  await wsDelivery(server);
  await getRunLatency(server);
} finally {
  server.proc.kill("SIGTERM");
  await server.proc.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
