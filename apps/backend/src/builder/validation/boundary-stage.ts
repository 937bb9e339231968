import { jsonEqual, targetObject, type BuilderIssue, type ObjectLocator, type Workflow, type WorkflowEdge } from "@weft/types";
import { describeObject, describeTarget, locatorCovers } from "../domain/target.ts";
import { findings, type Findings, type ValidationContext } from "./findings.ts";

const WIDEN_HINT = "stage only changes to the session's target, or ask the user to allow this object (PUT /api/builder/sessions/:id/scope)";

/** What a node-targeted change may not touch: other existing nodes, edges between other existing nodes, the workflow's own fields. */
function nodeScopeIssues(before: Workflow, after: Workflow, nodeId: string): BuilderIssue[] {
  const issues: BuilderIssue[] = [];
  const base = { code: "AI_IMPACT_OUT_OF_SCOPE", stage: "boundary" as const, objectType: "workflow" as const, objectKey: after.id, hint: WIDEN_HINT };
  const afterNodes = new Map(after.nodes.map((n) => [n.id, n]));
  for (const node of before.nodes) {
    if (node.id === nodeId) continue;
    const now = afterNodes.get(node.id);
    if (!now) issues.push({ ...base, nodeId: node.id, message: `node "${node.id}" is removed, but this session may change only node "${nodeId}" (and add new nodes)` });
    else if (!jsonEqual(node, now)) issues.push({ ...base, nodeId: node.id, message: `node "${node.id}" is changed, but this session may change only node "${nodeId}" (and add new nodes)` });
  }
  const existing = new Set(before.nodes.map((n) => n.id));
  const touchesOwnPart = (e: WorkflowEdge) => e.source === nodeId || e.target === nodeId || !existing.has(e.source) || !existing.has(e.target);
  const beforeEdges = new Map(before.edges.map((e) => [e.id, e]));
  const afterEdges = new Map(after.edges.map((e) => [e.id, e]));
  for (const id of new Set([...beforeEdges.keys(), ...afterEdges.keys()])) {
    const was = beforeEdges.get(id);
    const now = afterEdges.get(id);
    if (was && now && jsonEqual(was, now)) continue;
    if ((!was || touchesOwnPart(was)) && (!now || touchesOwnPart(now))) continue;
    issues.push({
      ...base,
      edgeId: id,
      message: `edge "${id}" between other nodes is ${!now ? "removed" : !was ? "added" : "changed"}, but this session may only wire node "${nodeId}" and new nodes`,
    });
  }
  const fields = (wf: Workflow) => ({ name: wf.name, description: wf.description, tags: wf.tags, annotations: wf.annotations });
  if (!jsonEqual(fields(before), fields(after))) {
    issues.push({ ...base, message: `the workflow's name, description, tags or annotations change, but this session may change only node "${nodeId}"` });
  }
  return issues;
}

/**
 * Stage 4 (seed 001 §8 "impact boundary"): the change stays inside the session's target — its
 * object, plus what the user allowed in the session's scope. A node session may change its node,
 * add nodes and wire them, but not edit the rest of the workflow.
 */
export async function boundaryStage(ctx: ValidationContext): Promise<Findings> {
  const out = findings();
  const { target, scope } = ctx.session;
  const home = targetObject(target);
  const allowed: ObjectLocator[] = [home, ...scope.extra];
  for (const entry of ctx.entries) {
    const locator: ObjectLocator = { type: entry.type, id: entry.key };
    const inScope = allowed.some((a) => locatorCovers(a, locator));
    if (!inScope) {
      out.errors.push({
        code: "AI_IMPACT_OUT_OF_SCOPE",
        stage: "boundary",
        message: `${describeObject(locator)} is outside this session's scope (${describeTarget(target)}${scope.extra.length ? ` and ${scope.extra.map(describeObject).join(", ")}` : ""})`,
        hint: WIDEN_HINT,
        objectType: entry.type,
        objectKey: entry.key,
      });
      continue;
    }
    const extraAllowed = scope.extra.some((a) => locatorCovers(a, locator));
    if (target.type === "node" && entry.type === "workflow" && entry.key === target.workflowId && !extraAllowed) {
      const stored = await ctx.view.repository("workflow").get(entry.key);
      if (!stored) continue;
      if (entry.value === null) {
        out.errors.push({
          code: "AI_IMPACT_OUT_OF_SCOPE",
          stage: "boundary",
          message: `workflow "${entry.key}" is deleted, but this session may change only node "${target.nodeId}"`,
          hint: WIDEN_HINT,
          objectType: "workflow",
          objectKey: entry.key,
        });
      } else {
        out.errors.push(...nodeScopeIssues(stored.document, entry.value, target.nodeId));
      }
    }
  }
  return out;
}
