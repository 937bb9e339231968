/**
 * code:javascript cost per invocation after warm-up: a trivial body (`return { y: input.x + 1 }`)
 * run as a one-node workflow by the engine (fresh QuickJS runtime and context each time, as in
 * production), and the node alone for reference. Target: ≤ 2 ms per invocation. Prints one JSON line.
 */
import { createBuiltinRegistry } from "../packages/nodes/src/index.ts";
import { ExecutionEngine } from "../packages/agent-runtime/src/index.ts";
import { silentLogger } from "../packages/types/src/index.ts";
import { codeJavascript } from "../packages/nodes/src/code/javascript.ts";

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
