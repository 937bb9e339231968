import { z } from "zod";
import { AnnotationSchema, WorkflowEdgeSchema, WorkflowNodeSchema, WorkflowSchema, type Workflow } from "@weft/types";
import type { Annotation, GraphCommand, Position } from "../../../shared/graph/commands.ts";
import { IdAllocator, edgeId } from "../../../shared/graph/ids.ts";

export const CLIPBOARD_KIND = "weft/clipboard";

/** What Copy puts on the clipboard (also as JSON text in the system clipboard). */
export const ClipSchema = z.object({
  kind: z.literal(CLIPBOARD_KIND),
  version: z.literal(1),
  nodes: z.array(WorkflowNodeSchema),
  edges: z.array(WorkflowEdgeSchema),
  annotations: z.array(AnnotationSchema),
});
export type Clip = z.infer<typeof ClipSchema>;

/** The selected nodes, the edges between them, and the selected annotations. */
export function copySelection(doc: Workflow, selection: { nodes: string[]; annotations: string[] }): Clip {
  const nodeIds = new Set(selection.nodes);
  const annotationIds = new Set(selection.annotations);
  return {
    kind: CLIPBOARD_KIND,
    version: 1,
    nodes: doc.nodes.filter((n) => nodeIds.has(n.id)),
    edges: doc.edges.filter((e) => nodeIds.has(e.source) && nodeIds.has(e.target)),
    annotations: doc.annotations.filter((a) => annotationIds.has(a.id)),
  };
}

export type ClipParse = { ok: true; clip: Clip } | { ok: false; reason: string };

/** Reads clipboard text: a Weft clip, or a whole workflow document (its nodes are pasted). */
export function parseClipText(text: string): ClipParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: "the clipboard does not hold Weft nodes (it is not JSON)" };
  }
  const clip = ClipSchema.safeParse(value);
  if (clip.success) return { ok: true, clip: clip.data };
  const workflow = WorkflowSchema.safeParse(value);
  if (workflow.success) return { ok: true, clip: copySelection(workflow.data, { nodes: workflow.data.nodes.map((n) => n.id), annotations: workflow.data.annotations.map((a) => a.id) }) };
  if (typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === CLIPBOARD_KIND) {
    const issue = clip.error.issues[0];
    return { ok: false, reason: `the copied nodes are malformed at ${issue.path.join(".") || "the top level"}: ${issue.message}` };
  }
  return { ok: false, reason: "the clipboard holds JSON, but neither copied Weft nodes nor a workflow" };
}

function clipOrigin(clip: Clip): Position {
  const xs = [...clip.nodes.map((n) => n.position.x), ...clip.annotations.map((a) => a.position.x)];
  const ys = [...clip.nodes.map((n) => n.position.y), ...clip.annotations.map((a) => a.position.y)];
  return { x: xs.length ? Math.min(...xs) : 0, y: ys.length ? Math.min(...ys) : 0 };
}

export interface Paste {
  command: GraphCommand;
  nodeIds: string[];
  annotationIds: string[];
}

/**
 * Adds a clip to `doc` with fresh ids (edges follow their nodes), its top-left corner at `at`.
 * Ids that are free in `doc` are kept, so pasting into another workflow keeps readable ids.
 */
export function pasteClip(doc: Workflow, clip: Clip, at: Position): Paste {
  const ids = IdAllocator.forWorkflow(doc);
  const origin = clipOrigin(clip);
  const shift = (p: Position): Position => ({ x: Math.round(p.x - origin.x + at.x), y: Math.round(p.y - origin.y + at.y) });
  const rename = new Map<string, string>();
  const nodes = clip.nodes.map((n) => {
    const id = ids.keepOrRenumber(n.id);
    rename.set(n.id, id);
    return { ...n, id, position: shift(n.position) };
  });
  const edges = clip.edges.flatMap((e) => {
    const source = rename.get(e.source);
    const target = rename.get(e.target);
    if (!source || !target) return [];
    return [{ ...e, id: edgeId(source, e.sourceHandle, target, e.targetHandle), source, target }];
  });
  const annotations: Annotation[] = clip.annotations.map((a) => ({ ...a, id: ids.keepOrRenumber(a.id), position: shift(a.position) }));
  return {
    command: { kind: "add", elements: { nodes, edges, annotations } },
    nodeIds: nodes.map((n) => n.id),
    annotationIds: annotations.map((a) => a.id),
  };
}
