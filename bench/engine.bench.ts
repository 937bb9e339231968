/**
 * ExecutionEngine overhead. For a chain and a fan-out/fan-in of N cheap nodes, measures the engine
 * (validation of the graph + setup + run, with events and observations on) against a bare baseline
 * in the same process: the same node functions awaited in topological order, each node's inputs and
 * outputs kept in a record, no engine. Prints one JSON line per shape and N: best wall time and median
 * CPU time per node, and `ratio`, the median of paired CPU ratios (`measurePair`). Targets: ≤ 5 µs/node
 * and ≤ 4× baseline at N = 10,000; linear growth.
 *
 * The cheap nodes are idempotent, and each measured engine run uses a fresh engine (an empty cache),
 * so cache keys are computed and outputs stored for every node, as in a first run.
 * `run` checks the graph of a typed Workflow; the full check of a raw document with its JSON schema
 * (`engine.validate`, done where documents come in: API, CLI) is printed for reference as
 * `validate_document_us_per_node`.
 */
import { gcAndSweep } from "bun:jsc";
import { createBuiltinRegistry, defineNode, NodeRegistry } from "../packages/nodes/src/index.ts";
import { ExecutionEngine } from "../packages/agent-runtime/src/index.ts";
import {
  NodeSpecSchema,
  silentLogger,
  type NodeContext,
  type NodeExecute,
  type NodeSpecInput,
  type NodeDefinition,
  type NodeValues,
  type RunResult,
  type Workflow,
} from "../packages/types/src/index.ts";

const SIZES = (process.env.BENCH_SIZES ?? "1000,10000,100000").split(",").map(Number);
const SHAPES = ["chain", "fan"] as const;
/** Timed samples per shape and size (each of about SAMPLE_NODES nodes; see `measurePair`). */
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 15);
type Shape = (typeof SHAPES)[number];

/**
 * The cheap nodes are declared like every Weft node (`defineNode`, which checks inputs and config on
 * each call). BENCH_NODES=plain uses bare functions instead, to see the engine's cost on its own.
 */
function cheapNode(spec: NodeSpecInput, execute: NodeExecute): NodeDefinition {
  return process.env.BENCH_NODES === "plain" ? { spec: NodeSpecSchema.parse(spec), execute } : defineNode(spec, execute);
}

const source = cheapNode(
  { type: "bench:source", title: "Source", inputs: [{ id: "value", type: "number", required: true }], outputs: [{ id: "value", type: "number" }], flags: { idempotent: true } },
  (inputs) => ({ value: inputs.value }),
);
const inc = cheapNode(
  {
    type: "bench:inc",
    title: "Increment",
    inputs: [
      { id: "x", type: "number", required: true },
      { id: "by", type: "number", default: 1 },
    ],
    outputs: [{ id: "y", type: "number" }],
    flags: { idempotent: true },
  },
  (inputs) => ({ y: (inputs.x as number) + (inputs.by as number) }),
);
const sum = cheapNode(
  { type: "bench:sum", title: "Sum", inputs: [{ id: "xs", type: "number", multi: true, required: true }], outputs: [{ id: "total", type: "number" }], flags: { idempotent: true } },
  (inputs) => {
    let total = 0;
    for (const x of inputs.xs as number[]) total += x;
    return { total };
  },
);
const catalog = new NodeRegistry().registerAll([source, inc, sum]);

/** chain: source → inc → … → inc.  fan: source → (N−2 × inc) → sum. */
function buildWorkflow(shape: Shape, n: number): Workflow {
  const nodes: Workflow["nodes"] = [{ id: "n0", type: "bench:source", position: { x: 0, y: 0 }, config: {}, inputs: { value: 0 } }];
  const edges: Workflow["edges"] = [];
  if (shape === "chain") {
    for (let i = 1; i < n; i++) {
      nodes.push({ id: `n${i}`, type: "bench:inc", position: { x: i, y: 0 }, config: {}, inputs: {} });
      edges.push({ id: `e${i}`, source: `n${i - 1}`, sourceHandle: i === 1 ? "value" : "y", target: `n${i}`, targetHandle: "x" });
    }
  } else {
    for (let i = 1; i < n - 1; i++) {
      // Distinct literal inputs: identical nodes would share one cache entry and run once.
      nodes.push({ id: `n${i}`, type: "bench:inc", position: { x: 1, y: i }, config: {}, inputs: { by: i } });
      edges.push({ id: `a${i}`, source: "n0", sourceHandle: "value", target: `n${i}`, targetHandle: "x" });
      edges.push({ id: `b${i}`, source: `n${i}`, sourceHandle: "y", target: `n${n - 1}`, targetHandle: "xs" });
    }
    nodes.push({ id: `n${n - 1}`, type: "bench:sum", position: { x: 2, y: 0 }, config: {}, inputs: {} });
  }
  return { id: `bench-${shape}-${n}`, name: "bench", description: "", revision: 0, nodes, edges, annotations: [], tags: [] };
}

interface Wire {
  src: number;
  handle: string;
  port: string;
  multi: boolean;
}

/** The bare baseline's wiring (made outside the timed part: the baseline is given its order and wiring). */
interface Plan {
  defs: NodeDefinition[];
  wires: Wire[][];
  literals: NodeValues[];
  ids: string[];
  configs: Record<string, unknown>[];
}

function wiring(workflow: Workflow): Plan {
  const index = new Map(workflow.nodes.map((node, i) => [node.id, i]));
  const defs = workflow.nodes.map((node) => catalog.require(node.type));
  const wires: Wire[][] = workflow.nodes.map(() => []);
  for (const edge of workflow.edges) {
    const target = index.get(edge.target)!;
    const multi = defs[target].spec.inputs.find((p) => p.id === edge.targetHandle)!.multi;
    wires[target].push({ src: index.get(edge.source)!, handle: edge.sourceHandle, port: edge.targetHandle, multi });
  }
  // Port defaults folded into the literal inputs ahead of time.
  const literals = workflow.nodes.map((node, i) => {
    const defaults = Object.fromEntries(defs[i].spec.inputs.filter((p) => p.default !== undefined).map((p) => [p.id, p.default]));
    return { ...defaults, ...node.inputs };
  });
  return { defs, wires, literals, ids: workflow.nodes.map((node) => node.id), configs: workflow.nodes.map((node) => node.config) };
}

const baseContext = {
  runId: "baseline",
  signal: new AbortController().signal,
  log: silentLogger,
  services: {},
  runSubworkflow: () => Promise.reject(new Error("not in the baseline")),
};

/**
 * Each node gets its own minimal context (its id and config), as any correct runner must give it,
 * and leaves a record of what it ran with and gave (id, inputs, outputs), kept to the end as a run
 * that reports per-node results must: the engine keeps the same for its observations.
 */
async function runBaseline(plan: Plan): Promise<unknown> {
  const { defs, wires, literals, ids, configs } = plan;
  const outputs = new Array<NodeValues>(defs.length);
  const records: { nodeId: string; inputs: NodeValues; outputs: NodeValues }[] = [];
  for (let i = 0; i < defs.length; i++) {
    const inputs: NodeValues = { ...literals[i] };
    for (const wire of wires[i]) {
      const value = outputs[wire.src][wire.handle];
      if (wire.multi) ((inputs[wire.port] ??= []) as unknown[]).push(value);
      else inputs[wire.port] = value;
    }
    const ctx: NodeContext = { ...baseContext, nodeId: ids[i], invocationId: ids[i], config: configs[i] };
    outputs[i] = (await defs[i].execute(inputs, ctx)) as NodeValues;
    records.push({ nodeId: ids[i], inputs, outputs: outputs[i] });
  }
  return records[records.length - 1].outputs;
}

async function runEngine(workflow: Workflow): Promise<unknown> {
  let events = 0;
  const engine = new ExecutionEngine({ catalog, logger: silentLogger });
  const result = await engine.run(workflow, { onEvent: () => void events++ });
  if (result.status !== "completed" || result.observations.length !== workflow.nodes.length || events < workflow.nodes.length + 2) {
    throw new Error(`engine run went wrong: ${result.status} ${JSON.stringify(result.error)}`);
  }
  return result.observations[result.observations.length - 1].outputs;
}

/** Nodes run per timed sample, whatever the size: see `measurePair`. */
const SAMPLE_NODES = 100_000;

interface PairTimes {
  /** Best wall time of one run (ms), engine and baseline. */
  engineMs: number;
  baselineMs: number;
  /** Median process CPU time (user + system, all threads: the collector's and the JIT's included) of one run (ms). */
  engineCpuMs: number;
  baselineCpuMs: number;
  /** Median over the samples of engine CPU / baseline CPU, each ratio taken from two samples measured back to back. */
  cpuRatio: number;
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Engine and baseline samples are taken in pairs, back to back (which goes first alternates), and the
 * ratio is the median of the pairs' CPU ratios: the machine is shared, its load moves a run's CPU time
 * by up to 2× from one second to the next, and both halves of a pair see the same load. (The ratio was
 * once best wall time over best wall time: two minima, often from different moments, and wall time
 * counts time the process was not running at all: one tree gave 2.8–4.9 at chain 10,000 on a busy machine.)
 * Every size is measured alike: the same number of samples, each running `batch` runs back to back
 * so a sample covers about SAMPLE_NODES nodes (100 runs of 1,000 nodes, 10 of 10,000, 1 of
 * 100,000). A sample then allocates about as much at every size and pays its share of collections:
 * one run of 10,000 nodes fits in the young generation and never collects, one of 100,000 does,
 * so timing single runs compared a run without collections to one with them.
 * Before each sample the heap is collected *and swept*: JavaScriptCore sweeps lazily, so after a
 * bare `Bun.gc(true)` the first code that allocates pays for sweeping the whole heap, including what
 * the other side left behind (measured: a 10k-node graph check took 2.2 µs/node after `Bun.gc(true)`
 * against 0.7 after `gcAndSweep()`). Collections the measured runs themselves cause are counted.
 */
async function measurePair(samples: number, batch: number, engine: () => Promise<unknown>, baseline: () => Promise<unknown>): Promise<PairTimes> {
  const sample = async (run: () => Promise<unknown>): Promise<[number, number]> => {
    gcAndSweep();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let b = 0; b < batch; b++) await run();
    const ms = (performance.now() - t0) / batch;
    const cpu = process.cpuUsage(cpu0);
    return [ms, (cpu.user + cpu.system) / 1000 / batch];
  };
  const wall = { engine: Infinity, baseline: Infinity };
  const engineCpu: number[] = [];
  const baselineCpu: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < samples; r++) {
    let e: [number, number];
    let b: [number, number];
    if (r % 2 === 0) {
      b = await sample(baseline);
      e = await sample(engine);
    } else {
      e = await sample(engine);
      b = await sample(baseline);
    }
    wall.engine = Math.min(wall.engine, e[0]);
    wall.baseline = Math.min(wall.baseline, b[0]);
    engineCpu.push(e[1]);
    baselineCpu.push(b[1]);
    ratios.push(e[1] / b[1]);
  }
  return { engineMs: wall.engine, baselineMs: wall.baseline, engineCpuMs: median(engineCpu), baselineCpuMs: median(baselineCpu), cpuRatio: median(ratios) };
}

const round = (x: number, digits = 3) => Number(x.toFixed(digits));

for (const shape of SHAPES) {
  for (const n of SIZES) {
    const workflow = buildWorkflow(shape, n);
    const plan = wiring(workflow);
    const batch = Math.max(1, Math.round(SAMPLE_NODES / n));
    // Warm-up: both paths, so the JIT has compiled them before anything is timed.
    for (let w = 0; w < Math.max(2, batch); w++) {
      await runBaseline(plan);
      await runEngine(workflow);
    }
    const expected = JSON.stringify(await runBaseline(plan));
    const got = JSON.stringify(await runEngine(workflow));
    if (expected !== got) throw new Error(`engine and baseline disagree: ${got} vs ${expected}`);
    const { engineMs, baselineMs, engineCpuMs, baselineCpuMs, cpuRatio } = await measurePair(
      SAMPLES,
      batch,
      () => runEngine(workflow),
      () => runBaseline(plan),
    );
    const raw = JSON.parse(JSON.stringify(workflow));
    const schemaEngine = new ExecutionEngine({ catalog, logger: silentLogger });
    let validateMs = Infinity;
    schemaEngine.validate(raw);
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now();
      if (!schemaEngine.validate(raw).ok) throw new Error("bench workflow is invalid");
      validateMs = Math.min(validateMs, performance.now() - t0);
    }
    const engineUs = (engineMs * 1000) / n;
    const baselineUs = (baselineMs * 1000) / n;
    console.log(
      JSON.stringify({
        bench: "engine",
        shape,
        n,
        engine_us_per_node: round(engineUs),
        baseline_us_per_node: round(baselineUs),
        ratio: round(cpuRatio, 2),
        overhead_us_per_node: round(engineUs - baselineUs),
        engine_cpu_us_per_node: round((engineCpuMs * 1000) / n),
        baseline_cpu_us_per_node: round((baselineCpuMs * 1000) / n),
        runs_per_sample: batch,
        validate_document_us_per_node: round((validateMs * 1000) / n),
      }),
    );
  }
}

/**
 * map: `core:map` over N items of a cheap skill (interface input → 3 × inc → interface output),
 * against the skill's work done N times in one flat workflow (N chains source → 3 × inc, one node
 * fewer per item). Target: ≤ 2× the flat workflow at N = 10,000. Fresh engines (empty caches).
 */
const MAP_SIZES = (process.env.BENCH_MAP_SIZES ?? "10000").split(",").map(Number);
const builtins = createBuiltinRegistry();
const mapCatalog = new NodeRegistry().registerAll([source, inc, sum, ...["core:map", "core:workflow-input", "core:workflow-output"].map((type) => builtins.get(type)!)]);
const incSkill: Workflow = {
  id: "inc3",
  name: "inc3",
  description: "",
  revision: 0,
  nodes: [
    { id: "in", type: "core:workflow-input", position: { x: 0, y: 0 }, config: { name: "item", portType: "number", required: true }, inputs: {} },
    ...[1, 2, 3].map((k) => ({ id: `i${k}`, type: "bench:inc", position: { x: k, y: 0 }, config: {}, inputs: {} })),
    { id: "out", type: "core:workflow-output", position: { x: 4, y: 0 }, config: { name: "y", portType: "number" }, inputs: {} },
  ],
  edges: [
    { id: "e1", source: "in", sourceHandle: "value", target: "i1", targetHandle: "x" },
    { id: "e2", source: "i1", sourceHandle: "y", target: "i2", targetHandle: "x" },
    { id: "e3", source: "i2", sourceHandle: "y", target: "i3", targetHandle: "x" },
    { id: "e4", source: "i3", sourceHandle: "y", target: "out", targetHandle: "value" },
  ],
  annotations: [],
  tags: [],
};

function flatWorkflow(n: number): Workflow {
  const nodes: Workflow["nodes"] = [];
  const edges: Workflow["edges"] = [];
  for (let i = 0; i < n; i++) {
    nodes.push({ id: `s${i}`, type: "bench:source", position: { x: 0, y: i }, config: {}, inputs: { value: i } });
    for (let k = 1; k <= 3; k++) {
      nodes.push({ id: `i${i}_${k}`, type: "bench:inc", position: { x: k, y: i }, config: {}, inputs: {} });
      edges.push({ id: `e${i}_${k}`, source: k === 1 ? `s${i}` : `i${i}_${k - 1}`, sourceHandle: k === 1 ? "value" : "y", target: `i${i}_${k}`, targetHandle: "x" });
    }
  }
  return { id: `flat-${n}`, name: "flat", description: "", revision: 0, nodes, edges, annotations: [], tags: [] };
}

function mapWorkflow(n: number): Workflow {
  const items = Array.from({ length: n }, (_, i) => i);
  return {
    id: `map-${n}`,
    name: "map",
    description: "",
    revision: 0,
    nodes: [{ id: "map", type: "core:map", position: { x: 0, y: 0 }, config: { workflowId: "inc3", concurrency: 8 }, inputs: { items } }],
    edges: [],
    annotations: [],
    tags: [],
  };
}

async function runChecked(workflow: Workflow): Promise<RunResult> {
  const engine = new ExecutionEngine({ catalog: mapCatalog, workflows: { getWorkflow: async (id) => (id === "inc3" ? incSkill : undefined) }, logger: silentLogger });
  const result = await engine.run(workflow, { onEvent: () => {} });
  if (result.status !== "completed") throw new Error(`map bench run went wrong: ${result.status} ${JSON.stringify(result.error)}`);
  return result;
}

for (const n of MAP_SIZES) {
  const flat = flatWorkflow(n);
  const mapped = mapWorkflow(n);
  for (let w = 0; w < 3; w++) {
    await runChecked(flat);
    await runChecked(mapped);
  }
  const results = (await runChecked(mapped)).outputs.results as { y: number }[];
  if (results.length !== n || results[n - 1].y !== n + 2) throw new Error("map gave wrong results");
  const {
    engineMs: mapMs,
    baselineMs: flatMs,
    cpuRatio: mapRatio,
  } = await measurePair(
    7,
    1,
    () => runChecked(mapped),
    () => runChecked(flat),
  );
  console.log(JSON.stringify({ bench: "engine", shape: "map", n, map_ms: round(mapMs), flat_ms: round(flatMs), ratio: round(mapRatio, 2), target_ratio: 2 }));
}
