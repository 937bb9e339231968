import type { Workflow, WorkflowEdge, WorkflowNode } from "@weft/types";

export type Annotation = Workflow["annotations"][number];
export type Position = { x: number; y: number };

/** The fields of a node an edit may replace; a field set to undefined is removed. */
export type NodePatch = Partial<Pick<WorkflowNode, "type" | "config" | "inputs" | "label" | "ui" | "ports" | "policy" | "pinned">>;
export type AnnotationPatch = Partial<Omit<Annotation, "id">>;
export type MetaPatch = Partial<Pick<Workflow, "name" | "description" | "tags" | "errorWorkflowId">>;

export interface ElementSet {
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  annotations: Annotation[];
}
export interface ElementIds {
  nodes: string[];
  edges: string[];
  annotations: string[];
}
/** Where each added element goes in its array (restores the order a removal found). */
export interface ElementIndexes {
  nodes: number[];
  edges: number[];
  annotations: number[];
}

/** Every edit of a workflow document. Each one applies to a document and yields its exact inverse. */
export type GraphCommand =
  | { kind: "add"; elements: ElementSet; indexes?: ElementIndexes }
  | { kind: "remove"; ids: ElementIds }
  | { kind: "move"; nodes: Record<string, Position>; annotations: Record<string, Position> }
  | { kind: "update-node"; id: string; patch: NodePatch }
  | { kind: "update-annotation"; id: string; patch: AnnotationPatch }
  | { kind: "update-meta"; patch: MetaPatch }
  | { kind: "batch"; commands: GraphCommand[] };

export interface Applied {
  doc: Workflow;
  inverse: GraphCommand;
}

export const emptyIds = (): ElementIds => ({ nodes: [], edges: [], annotations: [] });
export const emptySet = (): ElementSet => ({ nodes: [], edges: [], annotations: [] });

/** Applies an edit without touching `doc` (unchanged parts are shared with the result). Ids that no longer exist are ignored. */
export function applyCommand(doc: Workflow, command: GraphCommand): Applied {
  switch (command.kind) {
    case "add":
      return applyAdd(doc, command.elements, command.indexes);
    case "remove":
      return applyRemove(doc, command.ids);
    case "move":
      return applyMove(doc, command.nodes, command.annotations);
    case "update-node": {
      const index = doc.nodes.findIndex((n) => n.id === command.id);
      if (index < 0) return { doc, inverse: { kind: "batch", commands: [] } };
      const { value, previous } = patchObject(doc.nodes[index], command.patch);
      const nodes = doc.nodes.slice();
      nodes[index] = value;
      return { doc: { ...doc, nodes }, inverse: { kind: "update-node", id: command.id, patch: previous } };
    }
    case "update-annotation": {
      const index = doc.annotations.findIndex((a) => a.id === command.id);
      if (index < 0) return { doc, inverse: { kind: "batch", commands: [] } };
      const { value, previous } = patchObject(doc.annotations[index], command.patch);
      const annotations = doc.annotations.slice();
      annotations[index] = value;
      return { doc: { ...doc, annotations }, inverse: { kind: "update-annotation", id: command.id, patch: previous } };
    }
    case "update-meta": {
      const { value, previous } = patchObject(doc, command.patch);
      return { doc: value, inverse: { kind: "update-meta", patch: previous } };
    }
    case "batch": {
      let current = doc;
      const inverses: GraphCommand[] = [];
      for (const sub of command.commands) {
        const applied = applyCommand(current, sub);
        current = applied.doc;
        inverses.unshift(applied.inverse);
      }
      return { doc: current, inverse: { kind: "batch", commands: inverses } };
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

function patchObject<T extends object, P extends Partial<T>>(target: T, patch: P): { value: T; previous: P } {
  const value = { ...target } as Record<string, unknown>;
  const previous: Record<string, unknown> = {};
  for (const [key, next] of Object.entries(patch)) {
    previous[key] = value[key];
    if (next === undefined) delete value[key];
    else value[key] = next;
  }
  return { value: value as T, previous: previous as P };
}

function insertAt<T>(list: readonly T[], items: T[], indexes: number[] | undefined): T[] {
  if (!indexes || indexes.length !== items.length) return [...list, ...items];
  const result = list.slice();
  const order = items.map((item, i) => ({ item, at: indexes[i] })).sort((a, b) => a.at - b.at);
  for (const { item, at } of order) result.splice(Math.min(at, result.length), 0, item);
  return result;
}

function applyAdd(doc: Workflow, elements: ElementSet, indexes?: ElementIndexes): Applied {
  const next: Workflow = {
    ...doc,
    nodes: elements.nodes.length ? insertAt(doc.nodes, elements.nodes, indexes?.nodes) : doc.nodes,
    edges: elements.edges.length ? insertAt(doc.edges, elements.edges, indexes?.edges) : doc.edges,
    annotations: elements.annotations.length ? insertAt(doc.annotations, elements.annotations, indexes?.annotations) : doc.annotations,
  };
  const ids: ElementIds = {
    nodes: elements.nodes.map((n) => n.id),
    edges: elements.edges.map((e) => e.id),
    annotations: elements.annotations.map((a) => a.id),
  };
  return { doc: next, inverse: { kind: "remove", ids } };
}

/** Removes nodes with every edge touching them, and the listed edges and annotations. */
function applyRemove(doc: Workflow, ids: ElementIds): Applied {
  const nodeIds = new Set(ids.nodes);
  const edgeIds = new Set(ids.edges);
  const annotationIds = new Set(ids.annotations);
  const removed = emptySet();
  const indexes: ElementIndexes = { nodes: [], edges: [], annotations: [] };
  const nodes = doc.nodes.filter((n, i) => {
    if (!nodeIds.has(n.id)) return true;
    removed.nodes.push(n);
    indexes.nodes.push(i);
    return false;
  });
  const edges = doc.edges.filter((e, i) => {
    if (!edgeIds.has(e.id) && !nodeIds.has(e.source) && !nodeIds.has(e.target)) return true;
    removed.edges.push(e);
    indexes.edges.push(i);
    return false;
  });
  const annotations = doc.annotations.filter((a, i) => {
    if (!annotationIds.has(a.id)) return true;
    removed.annotations.push(a);
    indexes.annotations.push(i);
    return false;
  });
  return { doc: { ...doc, nodes, edges, annotations }, inverse: { kind: "add", elements: removed, indexes } };
}

function applyMove(doc: Workflow, nodeMoves: Record<string, Position>, annotationMoves: Record<string, Position>): Applied {
  const before: { nodes: Record<string, Position>; annotations: Record<string, Position> } = { nodes: {}, annotations: {} };
  const nodes = doc.nodes.map((n) => {
    const to = nodeMoves[n.id];
    if (!to) return n;
    before.nodes[n.id] = n.position;
    return { ...n, position: { x: to.x, y: to.y } };
  });
  const annotations = doc.annotations.map((a) => {
    const to = annotationMoves[a.id];
    if (!to) return a;
    before.annotations[a.id] = a.position;
    return { ...a, position: { x: to.x, y: to.y } };
  });
  return { doc: { ...doc, nodes, annotations }, inverse: { kind: "move", ...before } };
}

/**
 * Folds a follow-up edit into the previous one (typing in a field makes one undo step, not one per
 * key). Both commands were applied in order; the result applies both, its inverse undoes both.
 */
export function mergeApplied(first: { command: GraphCommand; inverse: GraphCommand }, second: { command: GraphCommand; inverse: GraphCommand }): { command: GraphCommand; inverse: GraphCommand } {
  const a = first.command;
  const b = second.command;
  const ia = first.inverse;
  const ib = second.inverse;
  if (a.kind === "update-node" && b.kind === "update-node" && ia.kind === "update-node" && ib.kind === "update-node" && a.id === b.id) {
    return { command: { ...a, patch: { ...a.patch, ...b.patch } }, inverse: { ...ia, patch: { ...ib.patch, ...ia.patch } } };
  }
  if (a.kind === "update-annotation" && b.kind === "update-annotation" && ia.kind === "update-annotation" && ib.kind === "update-annotation" && a.id === b.id) {
    return { command: { ...a, patch: { ...a.patch, ...b.patch } }, inverse: { ...ia, patch: { ...ib.patch, ...ia.patch } } };
  }
  if (a.kind === "update-meta" && b.kind === "update-meta" && ia.kind === "update-meta" && ib.kind === "update-meta") {
    return { command: { ...a, patch: { ...a.patch, ...b.patch } }, inverse: { ...ia, patch: { ...ib.patch, ...ia.patch } } };
  }
  return { command: { kind: "batch", commands: [a, b] }, inverse: { kind: "batch", commands: [ib, ia] } };
}

/** True when applying the command would change nothing worth an undo step. */
export function isEmptyCommand(command: GraphCommand): boolean {
  switch (command.kind) {
    case "add":
      return command.elements.nodes.length + command.elements.edges.length + command.elements.annotations.length === 0;
    case "remove":
      return command.ids.nodes.length + command.ids.edges.length + command.ids.annotations.length === 0;
    case "move":
      return Object.keys(command.nodes).length + Object.keys(command.annotations).length === 0;
    case "update-node":
    case "update-annotation":
    case "update-meta":
      return Object.keys(command.patch).length === 0;
    case "batch":
      return command.commands.every(isEmptyCommand);
    default: {
      const never: never = command;
      return never;
    }
  }
}
