import { jsonEqual, workflowInterface, type BuilderIssue, type ValidationIssue, type Workflow } from "@weft/types";
import { allReferences } from "../references/references.ts";
import { findings, type Findings, type ValidationContext } from "./findings.ts";

function fromEngine(workflowId: string, issue: ValidationIssue): BuilderIssue {
  const out: BuilderIssue = { code: issue.code, stage: "graph", message: issue.message, hint: issue.hint, objectType: "workflow", objectKey: workflowId };
  if (issue.nodeId !== undefined) out.nodeId = issue.nodeId;
  if (issue.edgeId !== undefined) out.edgeId = issue.edgeId;
  if (issue.nodeIds !== undefined) out.nodeIds = issue.nodeIds;
  if (issue.path !== undefined && issue.path.length > 0) out.path = issue.path.join(".");
  return out;
}

function interfaceSignature(wf: Workflow): unknown {
  const iface = workflowInterface(wf);
  const strip = (ports: typeof iface.inputs) => ports.map(({ name, type, required }) => ({ name, type, required }));
  return { inputs: strip(iface.inputs), outputs: strip(iface.outputs) };
}

/**
 * Stage 2: Weft's graph rules, exactly as the engine checks them before a run (node types, ports
 * and their types, cycles, required inputs, config). A skill whose interface changes warns about
 * the workflows calling it, whose nodes keep the old ports until they are refreshed.
 */
export async function graphStage(ctx: ValidationContext): Promise<Findings> {
  const out = findings();
  let references: Awaited<ReturnType<typeof allReferences>> | undefined;
  for (const entry of ctx.entries) {
    if (entry.type !== "workflow" || entry.value === null) continue;
    const result = ctx.validator.validate(entry.value);
    if (!result.ok) out.errors.push(...result.issues.map((issue) => fromEngine(entry.key, issue)));

    const stored = await ctx.view.repository("workflow").get(entry.key);
    if (!stored || jsonEqual(interfaceSignature(stored.document), interfaceSignature(entry.value))) continue;
    references ??= await allReferences(ctx.view);
    const callers = references.filter((r) => r.to.type === "workflow" && r.to.id === entry.key && r.from.type === "workflow" && r.nodeId !== undefined && r.from.id !== entry.key);
    for (const caller of callers) {
      out.warnings.push({
        code: "AI_SKILL_INTERFACE_CHANGED",
        stage: "graph",
        message: `the interface of "${entry.key}" changes, and node "${caller.nodeId}" of workflow "${caller.from.id}" calls it as a skill with the old ports`,
        hint: `refresh that node (stage it again without "ports" so they are taken from the new interface), or keep the interface`,
        objectType: "workflow",
        objectKey: caller.from.id,
        ...(caller.nodeId ? { nodeId: caller.nodeId } : {}),
      });
    }
  }
  return out;
}
