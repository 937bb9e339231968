import type { Workflow, WorkflowEdge, WorkflowNode } from "@weft/types";
import type { Annotation } from "../../../shared/graph/commands.ts";

/** Vue Flow node types this editor registers. */
export type FlowNodeKind = "weft" | "frame" | "comment";

export interface WeftNodeData {
  node: WorkflowNode;
}
export interface AnnotationData {
  annotation: Annotation;
}

/** The subset of a Vue Flow node the canvas hands to `<VueFlow :nodes>`. */
export interface FlowNode {
  id: string;
  type: FlowNodeKind;
  position: { x: number; y: number };
  data: WeftNodeData | AnnotationData;
  zIndex?: number;
  /** What assistive technology calls the node (Vue Flow puts it on the node's element). */
  ariaLabel?: string;
}

export interface FlowEdge {
  id: string;
  type: "weft";
  source: string;
  target: string;
  sourceHandle: string;
  targetHandle: string;
}

/** Annotation ids live in the node id space of Vue Flow; `/` never occurs in a workflow node id. */
const ANNOTATION_PREFIX = "annotation/";
export const annotationFlowId = (id: string): string => ANNOTATION_PREFIX + id;
export const annotationIdOf = (flowId: string): string | null => (flowId.startsWith(ANNOTATION_PREFIX) ? flowId.slice(ANNOTATION_PREFIX.length) : null);

export const DEFAULT_FRAME_SIZE = { width: 480, height: 320 };

// Document objects are immutable: a node or edge object maps to the same flow element until edited,
// so Vue Flow sees unchanged values and re-renders only what an edit touched.
const nodeMemo = new WeakMap<WorkflowNode, FlowNode>();
const annotationMemo = new WeakMap<Annotation, FlowNode>();
const edgeMemo = new WeakMap<WorkflowEdge, FlowEdge>();

/** `describe` gives the node's accessible name; it is asked once per node object, as the rest is. */
export function toFlowNode(node: WorkflowNode, describe?: (node: WorkflowNode) => string): FlowNode {
  let flow = nodeMemo.get(node);
  if (!flow) {
    flow = { id: node.id, type: "weft", position: { x: node.position.x, y: node.position.y }, data: { node }, ariaLabel: describe?.(node) };
    nodeMemo.set(node, flow);
  }
  return flow;
}

export function annotationToFlowNode(annotation: Annotation): FlowNode {
  let flow = annotationMemo.get(annotation);
  if (!flow) {
    const isFrame = annotation.kind === "frame";
    flow = {
      id: annotationFlowId(annotation.id),
      type: annotation.kind,
      position: { x: annotation.position.x, y: annotation.position.y },
      data: { annotation },
      // Frames lie under the nodes they group; comments float above.
      zIndex: isFrame ? -10 : 5,
    };
    annotationMemo.set(annotation, flow);
  }
  return flow;
}

export function toFlowEdge(edge: WorkflowEdge): FlowEdge {
  let flow = edgeMemo.get(edge);
  if (!flow) {
    flow = { id: edge.id, type: "weft", source: edge.source, target: edge.target, sourceHandle: edge.sourceHandle, targetHandle: edge.targetHandle };
    edgeMemo.set(edge, flow);
  }
  return flow;
}

/**
 * Everything Vue Flow draws for a workflow: frames first (under), then nodes, then comments. With
 * `only`, just the workflow nodes it accepts (a large graph's culling; annotations are few and all kept).
 */
export function toFlowNodes(doc: Workflow, describe?: (node: WorkflowNode) => string, only?: (id: string) => boolean): FlowNode[] {
  const frames = doc.annotations.filter((a) => a.kind === "frame").map(annotationToFlowNode);
  const comments = doc.annotations.filter((a) => a.kind === "comment").map(annotationToFlowNode);
  const nodes = only ? doc.nodes.filter((n) => only(n.id)) : doc.nodes;
  return [...frames, ...nodes.map((n) => toFlowNode(n, describe)), ...comments];
}

/** The workflow's edges for Vue Flow; with `only`, those whose both nodes it accepts (Vue Flow drops the others). */
export function toFlowEdges(doc: Workflow, only?: (id: string) => boolean): FlowEdge[] {
  return (only ? doc.edges.filter((e) => only(e.source) && only(e.target)) : doc.edges).map(toFlowEdge);
}

/** Splits Vue Flow element ids into workflow node ids and annotation ids. */
export function splitFlowIds(flowIds: Iterable<string>): { nodes: string[]; annotations: string[] } {
  const nodes: string[] = [];
  const annotations: string[] = [];
  for (const id of flowIds) {
    const annotation = annotationIdOf(id);
    if (annotation === null) nodes.push(id);
    else annotations.push(annotation);
  }
  return { nodes, annotations };
}

/** The workflow nodes whose top-left corner lies inside a frame (moved with it, ComfyUI-style). */
export function nodesInFrame(doc: Workflow, frame: Annotation): string[] {
  const size = frame.size ?? DEFAULT_FRAME_SIZE;
  const inside = (p: { x: number; y: number }) => p.x >= frame.position.x && p.y >= frame.position.y && p.x <= frame.position.x + size.width && p.y <= frame.position.y + size.height;
  return doc.nodes.filter((n) => inside(n.position)).map((n) => n.id);
}
