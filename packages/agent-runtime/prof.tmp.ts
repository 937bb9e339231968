import { defineNode, NodeRegistry } from "@weft/nodes";
import { ExecutionEngine, LruOutputCache } from "./src/engine/index.ts";
import { silentLogger, NodeSpecSchema } from "@weft/types";
const rawNode = (spec: any, execute: any) => ({ spec: NodeSpecSchema.parse(spec), execute });
const inc = rawNode({ type: "bench:inc", title: "Inc", inputs: [{ id: "x", type: "number", required: true }, { id: "by", type: "number", default: 1 }], outputs: [{ id: "y", type: "number" }], flags: { idempotent: !process.env.NOIDEM } }, (i) => ({ y: (i.x as number) + (i.by as number) }));
const catalog = new NodeRegistry().registerAll([inc]);
const n = Number(process.argv[2] ?? 10000);
const nodes: any[] = [], edges: any[] = [];
for (let i = 0; i < n; i++) { nodes.push({ id: "n" + i, type: "bench:inc", position: { x: 0, y: 0 }, config: {}, inputs: i === 0 ? { x: 0 } : {} }); if (i) edges.push({ id: "e" + i, source: "n" + (i - 1), sourceHandle: "y", target: "n" + i, targetHandle: "x" }); }
const wf = { id: "w", name: "w", description: "", revision: 0, nodes, edges, annotations: [], tags: [] };
const reps = Number(process.argv[3] ?? 30);
const times: number[] = [];
for (let r = 0; r < reps; r++) {
  if (!process.env.NOGC) Bun.gc(true);
  const t = performance.now();
  let ev = 0;
  const res = await new ExecutionEngine({ catalog, logger: silentLogger, cache: process.env.CAP ? new LruOutputCache(Number(process.env.CAP)) : undefined }).run(wf as any, process.env.NOEV ? {} : { onEvent: () => void ev++ });
  times.push((performance.now() - t) * 1000 / n);
}
times.sort((a, b) => a - b);
console.log("min", times[0].toFixed(2), "median", times[times.length >> 1].toFixed(2));
