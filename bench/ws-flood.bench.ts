/**
 * `bun run bench:ws-flood`: many WebSockets each sending many subscribes at once, against the API server
 * (a real child process), while one client polls `GET /api/health`. Prints one JSON line:
 *   ws-flood — sockets × subscribes each (BENCH_WS_SOCKETS, BENCH_WS_SUBSCRIBES; default 300 × 300), signed in
 *   with a personal API token; how long until every socket had its answers (or was closed), what the sockets
 *   got (subscribed, refused as too many, closed), and the health probe's latency meanwhile (p50, p99, max).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnServer } from "../apps/backend/src/testing/child-server.ts";
import { call } from "../apps/backend/src/testing/http-call.ts";
import { templateWorkflow } from "../apps/backend/src/testing/test-server.ts";
import { BunWebSocket } from "../apps/backend/src/testing/bun-websocket.ts";
import { RunStatusSchema, StartedRunSchema } from "../apps/backend/src/testing/answers.ts";
import { CreatedTokenSchema } from "../apps/backend/src/testing/users.ts";

const SOCKETS = Number(process.env.BENCH_WS_SOCKETS ?? 300);
const SUBSCRIBES = Number(process.env.BENCH_WS_SUBSCRIBES ?? 300);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-"));
const server = await spawnServer(dataDir, { WEFT_EXAMPLES_DIR: dataDir });
try {
  const must = async (method: string, path: string, body: unknown, status: number, headers?: Record<string, string>) => {
    const res = headers ? await call(server.url, method, path, body, headers) : await server.call(method, path, body);
    if (res.status !== status) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
    return res;
  };
  await must("POST", "/api/users", { username: "flood", role: "viewer", password: "flood-password-long" }, 201);
  const signedIn = await fetch(`${server.url}/api/auth/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "flood", password: "flood-password-long" }),
  });
  const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0];
  const { secret } = CreatedTokenSchema.parse((await must("POST", "/api/auth/tokens", { name: "bench" }, 201, { cookie })).body);

  await must("POST", "/api/workflows", { workflow: templateWorkflow("bench-small") }, 201);
  const { runId } = StartedRunSchema.parse((await must("POST", "/api/workflows/bench-small/runs", { inputs: { topic: "bench" } }, 202)).body);
  for (;;) {
    const { run } = RunStatusSchema.parse((await must("GET", `/api/runs/${runId}`, undefined, 200)).body);
    if (!["queued", "running"].includes(run.status)) break;
    await Bun.sleep(50);
  }

  const sockets = await Promise.all(
    Array.from({ length: SOCKETS }, () => {
      const ws = new BunWebSocket(server.url.replace(/^http/, "ws") + "/ws", { headers: { authorization: `Bearer ${secret}` } });
      return new Promise<WebSocket>((resolve, reject) => {
        ws.onopen = () => resolve(ws);
        ws.onerror = () => reject(new Error("WebSocket failed"));
      });
    }),
  );

  let flooding = true;
  const health: number[] = [];
  const probe = (async () => {
    while (flooding) {
      const t0 = performance.now();
      await (await fetch(`${server.url}/api/health`)).arrayBuffer();
      health.push(performance.now() - t0);
      await Bun.sleep(10);
    }
  })();

  const started = performance.now();
  const counts = { subscribed: 0, refused: 0, other_errors: 0, closed: 0 };
  const message = JSON.stringify({ type: "subscribe", streamId: runId, after: -1 });
  await Promise.all(
    sockets.map(
      (ws) =>
        new Promise<void>((resolve) => {
          let answers = 0;
          const answered = () => {
            if (++answers >= SUBSCRIBES) resolve();
          };
          ws.onmessage = (e) => {
            const { type, error } = JSON.parse(String(e.data)) as { type: string; error?: { code: string } };
            if (type === "subscribed") {
              counts.subscribed++;
              answered();
            } else if (type === "error") {
              if (error?.code === "TOO_MANY_MESSAGES") counts.refused++;
              else counts.other_errors++;
              answered();
            }
          };
          ws.onclose = () => {
            counts.closed++;
            resolve();
          };
          for (let i = 0; i < SUBSCRIBES; i++) ws.send(message);
        }),
    ),
  );
  const floodMs = performance.now() - started;
  flooding = false;
  await probe;
  for (const ws of sockets) ws.close();
  health.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 10) / 10;
  console.log(
    JSON.stringify({
      bench: "ws-flood",
      case: "subscribes",
      sockets: SOCKETS,
      subscribes_per_socket: SUBSCRIBES,
      flood_ms: Math.round(floodMs),
      ...counts,
      health_probes: health.length,
      health_p50_ms: round(percentile(health, 50)),
      health_p99_ms: round(percentile(health, 99)),
      health_max_ms: round(health.at(-1) ?? NaN),
    }),
  );
} finally {
  server.proc.kill("SIGTERM");
  await server.proc.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
