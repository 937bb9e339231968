import { createBuiltinRegistry } from "@weft/nodes";
import { ExecutionEngine, DirectoryWorkflowSource } from "./src/engine/index.ts";
import { readdirSync, readFileSync } from "node:fs";
const dir = "/work/main/workflows";
const engine = new ExecutionEngine({ catalog: createBuiltinRegistry(), workflows: new DirectoryWorkflowSource(dir) });
for (const f of readdirSync(dir).filter(f => f.endsWith(".json"))) {
  const v = engine.validate(JSON.parse(readFileSync(`${dir}/${f}`, "utf8")));
  if (!v.ok) { console.log(f, "INVALID", v.issues); continue; }
  const r = await engine.run(v.workflow);
  console.log(f, r.status, JSON.stringify(r.outputs).slice(0, 200), r.error ? JSON.stringify(r.error).slice(0, 300) : "");
  for (const o of r.observations) if (o.status !== "completed") console.log("   ", o.nodeId, o.status, o.skipReason ?? o.error?.message);
}
