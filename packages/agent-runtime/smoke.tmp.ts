import { ExecutionEngine } from "./src/engine/index.ts";
import { createTestCatalog, workflow, eventLog } from "./src/engine/testing/test-nodes.ts";
const { catalog, probe } = createTestCatalog();
const engine = new ExecutionEngine({ catalog });
const wf = workflow("w", [
  { id: "in", type: "core:workflow-input", config: { name: "x", portType: "number", required: true } },
  { id: "add", type: "test:add", inputs: { b: 10 } },
  { id: "d1", type: "test:delay", inputs: { ms: 30 } },
  { id: "d2", type: "test:delay", inputs: { ms: 30 } },
  { id: "s", type: "test:stream", inputs: { text: "hello big world" } },
  { id: "out", type: "core:workflow-output", config: { name: "result", portType: "number" } },
], [["in", "value", "add", "a"], ["add", "sum", "out", "value"], ["add", "sum", "d1", "value"]]);
const log = eventLog();
const r = await engine.run(wf, { inputs: { x: 5 }, onEvent: log.onEvent });
console.log(r.status, r.outputs, r.error, r.durationMs);
console.log(log.events.map(e => `${e.seq} ${e.type} ${"nodeId" in e ? e.nodeId : ""}`).join("\n"));
console.log(probe.timeline);
const r2 = await engine.run(wf, { inputs: { x: 5 } });
console.log(r2.observations.map(o => `${o.nodeId}:${o.cached}`));
console.log(engine.validate({ id: "x", name: "x", nodes: [{ id: "a", type: "test:ad" }, { id: "b", type: "test:upper" }, {id: "c"}], edges: [{ id: "e", source: "a", sourceHandle: "sum", target: "b", targetHandle: "text" }, { id: "e2", source: "b", sourceHandle: "text", target: "a", targetHandle: "a" }] }));
