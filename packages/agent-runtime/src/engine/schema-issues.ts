import { z } from "zod";
import { WorkflowEdgeSchema, WorkflowNodeSchema, WorkflowSchema, type ValidationIssue, type Workflow, type WorkflowEdge, type WorkflowNode } from "@weft/types";

const WorkflowHeaderSchema = WorkflowSchema.omit({ nodes: true, edges: true });

/**
 * The result of checking a workflow document against the schema, one node and edge at a time, so
 * that the graph checks can still run on the parts that are well formed and every problem is
 * reported at once.
 */
export interface ParsedDocument {
  issues: ValidationIssue[];
  /** Set when the whole document is schema-valid. */
  workflow?: Workflow;
  /** The well-formed nodes and edges (all of them when `workflow` is set). */
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  /** Ids of nodes that exist but are malformed: edges to them are not "dangling". */
  malformedNodeIds: Set<string>;
}

function describePath(path: readonly PropertyKey[]): string {
  return path.length === 0
    ? "the document"
    : path
        .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
        .join("")
        .replace(/^\./, "");
}

function hintFor(issue: z.core.$ZodIssue, where: string): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? `add "${where}" (a ${issue.expected})` : `make "${where}" a ${issue.expected}`;
    case "invalid_value":
      return `set "${where}" to one of: ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "invalid_format":
    case "too_small":
    case "too_big":
    case "not_multiple_of":
      return `change "${where}": it ${issue.message.replace(/^Invalid input: /, "").replace(/^Too (small|big): /, "")}`;
    default:
      return `fix "${where}" (${issue.message})`;
  }
}

function toIssues(error: z.ZodError, prefix: (string | number)[], ids: { nodeId?: string; edgeId?: string }): ValidationIssue[] {
  return error.issues.map((issue) => {
    const path = [...prefix, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
    const where = describePath(path);
    return {
      code: "SCHEMA" as const,
      message: `${where}: ${issue.message}`,
      hint: hintFor(issue, where),
      path,
      ...(ids.nodeId ? { nodeId: ids.nodeId } : {}),
      ...(ids.edgeId ? { edgeId: ids.edgeId } : {}),
    };
  });
}

function stringField(value: unknown, key: string): string | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const field = (value as Record<string, unknown>)[key];
  return typeof field === "string" && field.length > 0 ? field : undefined;
}

/** Edge ids name edges in the editor and in issues; running never looks them up, so only documents are checked. */
export function duplicateEdgeIds(edges: readonly WorkflowEdge[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const edge of edges) {
    if (seen.has(edge.id)) issues.push({ code: "DUPLICATE_ID", edgeId: edge.id, message: `two edges have the id "${edge.id}"`, hint: "give every edge a unique id" });
    seen.add(edge.id);
  }
  return issues;
}

export function parseWorkflowDocument(doc: unknown): ParsedDocument {
  const result: ParsedDocument = { issues: [], nodes: [], edges: [], malformedNodeIds: new Set() };
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) {
    result.issues.push({
      code: "SCHEMA",
      message: `a workflow is a JSON object, got ${doc === null ? "null" : Array.isArray(doc) ? "an array" : typeof doc}`,
      hint: 'write the workflow as an object: { "id", "name", "nodes": [...], "edges": [...] }',
      path: [],
    });
    return result;
  }
  const raw = doc as Record<string, unknown>;
  const header = WorkflowHeaderSchema.safeParse(raw);
  if (!header.success) result.issues.push(...toIssues(header.error, [], {}));

  if (!Array.isArray(raw.nodes)) {
    result.issues.push({ code: "SCHEMA", message: `"nodes" must be an array of nodes`, hint: 'add "nodes": [] with one object per node', path: ["nodes"] });
  } else {
    raw.nodes.forEach((node, i) => {
      const parsed = WorkflowNodeSchema.safeParse(node);
      if (parsed.success) result.nodes.push(parsed.data);
      else {
        const nodeId = stringField(node, "id");
        if (nodeId) result.malformedNodeIds.add(nodeId);
        result.issues.push(...toIssues(parsed.error, ["nodes", i], { nodeId }));
      }
    });
  }

  if (raw.edges !== undefined && !Array.isArray(raw.edges)) {
    result.issues.push({ code: "SCHEMA", message: `"edges" must be an array of edges`, hint: 'write "edges": [] with one object per edge', path: ["edges"] });
  } else if (Array.isArray(raw.edges)) {
    raw.edges.forEach((edge, i) => {
      const parsed = WorkflowEdgeSchema.safeParse(edge);
      if (parsed.success) result.edges.push(parsed.data);
      else result.issues.push(...toIssues(parsed.error, ["edges", i], { edgeId: stringField(edge, "id") }));
    });
  }

  result.issues.push(...duplicateEdgeIds(result.edges));
  if (result.issues.length === 0 && header.success) {
    result.workflow = { ...header.data, nodes: result.nodes, edges: result.edges };
  }
  return result;
}
