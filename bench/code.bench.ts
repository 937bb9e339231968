/**
 * code:javascript cost per invocation after warm-up: a trivial body (`return { y: input.x + 1 }`)
 * run as a one-node workflow by the engine (on a warm code thread, a fresh QuickJS runtime and context
 * each time, as in production), and the node alone for reference. Target: ≤ 2 ms per invocation.
 * Then the real server (a child process) while 4 code nodes spin at their limits (`while (true) {}`):
 * GET /api/health latency, idle and meanwhile. Target: p99 < 100 ms. Prints one JSON line per case.
 */
import { createBuiltinRegistry } from "../packages/nodes/src/index.ts";
import { ExecutionEngine } from "../packages/agent-runtime/src/index.ts";
import { silentLogger } from "../packages/types/src/index.ts";
import { codeJavascript } from "../packages/nodes/src/code/javascript.ts";
import { codeWorkers } from "../packages/nodes/src/code/code-workers.ts";
import { spawnServer, type ChildServer } from "../apps/backend/src/testing/child-server.ts";
import { removeTempDirs, tempDir } from "../apps/backend/src/testing/temp-dirs.ts";

const WARMUP = 200;
const RUNS = Number(process.env.BENCH_RUNS ?? 2000);
const CODE = "return { y: input.x + 1 };";

const engine = new ExecutionEngine({ catalog: createBuiltinRegistry(), logger: silentLogger });
const workflow = engine.singleNodeWorkflow("code:javascript", { code: CODE, input: { x: 1 } });

async function viaEngine(): Promise<void> {
  const result = await engine.run(workflow);
  if (result.status !== "completed") throw new Error(`the code node failed: ${JSON.stringify(result.error)}`);
}

async function nodeAlone(): Promise<void> {
  const ctx = {
    runId: "bench",
    nodeId: "code",
    invocationId: "code-1",
    config: {},
    signal: new AbortController().signal,
    log: silentLogger,
    services: {},
    runSubworkflow: () => Promise.reject(new Error("none")),
  };
  const run = codeJavascript.execute({ code: CODE, input: { x: 1 } }, ctx) as AsyncGenerator<unknown, Record<string, unknown>, void>;
  for (let step = await run.next(); !step.done; step = await run.next());
}

async function perInvocationMs(fn: () => Promise<void>): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const started = performance.now();
  for (let i = 0; i < RUNS; i++) await fn();
  return (performance.now() - started) / RUNS;
}

const engineMs = await perInvocationMs(viaEngine);
const nodeMs = await perInvocationMs(nodeAlone);
console.log(JSON.stringify({ bench: "code", runs: RUNS, engine_ms_per_invocation: Number(engineMs.toFixed(4)), node_ms_per_invocation: Number(nodeMs.toFixed(4)), target_ms: 2, ok: engineMs <= 2 }));
codeWorkers.close();

const SPINNERS = 4;
const SPIN_MS = Number(process.env.BENCH_SPIN_MS ?? 10_000);

/** GET /api/health every 20 ms while `busy()` holds (at least `minMs`): each answer's latency. */
async function healthLatencies(server: ChildServer, busy: () => boolean, minMs: number): Promise<number[]> {
  const latencies: number[] = [];
  const started = performance.now();
  while (busy() || performance.now() - started < minMs) {
    const at = performance.now();
    const res = await fetch(`${server.url}/api/health`);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET /api/health answered ${res.status}`);
    latencies.push(performance.now() - at);
    await Bun.sleep(20);
  }
  return latencies;
}

function quantile(sorted: number[], q: number): number {
  return Number(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(2));
}

function report(phase: string, latencies: number[]): void {
  const sorted = [...latencies].sort((a, b) => a - b);
  const p99 = quantile(sorted, 0.99);
  console.log(
    JSON.stringify({
      bench: "code-health",
      phase,
      spinning: phase === "idle" ? 0 : SPINNERS,
      spin_limit_ms: SPIN_MS,
      samples: sorted.length,
      p50_ms: quantile(sorted, 0.5),
      p99_ms: p99,
      max_ms: quantile(sorted, 1),
      target_ms: 100,
      ok: p99 < 100,
    }),
  );
}

const server = await spawnServer(tempDir("weft-bench-code-"));
try {
  const nodes = Array.from({ length: SPINNERS }, (_, i) => ({ id: `spin${i}`, type: "code:javascript", inputs: { code: "while (true) {}", timeoutMs: SPIN_MS } }));
  const saved = await server.call("POST", "/api/workflows", { workflow: { id: "spinners", name: "Spinners", nodes, edges: [] } });
  if (saved.status !== 201) throw new Error(`saving the workflow answered ${saved.status}: ${JSON.stringify(saved.body)}`);
  report("idle", await healthLatencies(server, () => false, 2000));
  const started = await server.call("POST", "/api/workflows/spinners/runs", { inputs: {} });
  const runId = (started.body as { runId: string }).runId;
  let running = true;
  const ended = (async () => {
    for (;;) {
      const status = ((await server.call("GET", `/api/runs/${runId}`)).body as { run: { status: string } }).run.status;
      if (!["queued", "running"].includes(status)) return status;
      await Bun.sleep(200);
    }
  })().finally(() => (running = false));
  report("spinning", await healthLatencies(server, () => running, 0));
  const status = await ended;
  if (status !== "failed") throw new Error(`the spinning run ended ${status}, not failed (CODE_TIMEOUT)`);
} finally {
  server.proc.kill();
  await server.proc.exited;
  removeTempDirs();
}
