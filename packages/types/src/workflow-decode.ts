import { NODE_ID_PATTERN, WorkflowNodeSchema, type Workflow, type WorkflowNode } from "./workflow.ts";

/**
 * A workflow document decoded without walking it through zod, when it is already in the shape a parse gives (what
 * the server sends: every default filled in, no unknown key): zod's object parsing, interpreted where eval is refused
 * (the editor's CSP), took 23-61 ms for a 1,000-node workflow. Checks every rule of `WorkflowSchema` by hand, and
 * answers null for anything it does not accept as is (an unknown key, a missing default, a broken rule): the caller
 * then parses with the schema, which fills the defaults or refuses with its precise error. So what this accepts is
 * what the schema accepts, unchanged; the rare parts (a node's policy and ports) go through their own schemas.
 */
export function canonicalWorkflow(value: unknown): Workflow | null {
  if (!isRecord(value) || !onlyKeys(value, WORKFLOW_KEYS)) return null;
  const { id, name, description, revision, nodes, edges, annotations, tags, errorWorkflowId } = value;
  if (!nonEmpty(id) || !nonEmpty(name) || typeof description !== "string" || !isCount(revision)) return null;
  if (errorWorkflowId !== undefined && !nonEmpty(errorWorkflowId)) return null;
  if (!Array.isArray(nodes) || !Array.isArray(edges) || !Array.isArray(annotations) || !Array.isArray(tags)) return null;
  // Loops, not every(): it would skip the holes of a sparse array, which the schema refuses.
  for (const tag of tags) if (typeof tag !== "string") return null;
  for (const edge of edges) if (!isEdge(edge)) return null;
  for (const annotation of annotations) if (!isAnnotation(annotation)) return null;
  // A node with a policy or ports comes back as its schema gives it: the list is copied then, the value left as it came.
  let decoded: unknown[] = nodes;
  const types = new Set<string>();
  for (let i = 0; i < nodes.length; i++) {
    const node = canonicalNode(nodes[i], types);
    if (node === null) return null;
    if (node === nodes[i]) continue;
    if (decoded === nodes) decoded = nodes.slice();
    decoded[i] = node;
  }
  // Every field checked above against the schema's rule for it.
  return (decoded === nodes ? value : { ...value, nodes: decoded }) as Workflow;
}

type Shape = Record<string, unknown>;

/** The keys each check below reads (workflow-decode.test.ts fills every key of the schemas: a key they gain is refused here until checked). */
const WORKFLOW_KEYS = new Set(["id", "name", "description", "revision", "nodes", "edges", "annotations", "tags", "errorWorkflowId"]);
const NODE_KEYS = new Set(["id", "type", "position", "config", "inputs", "policy", "ports", "label", "pinned", "ui"]);
const EDGE_KEYS = new Set(["id", "source", "sourceHandle", "target", "targetHandle"]);
const ANNOTATION_KEYS = new Set(["id", "kind", "position", "size", "text", "color"]);
const POSITION_KEYS = new Set(["x", "y"]);
const SIZE_KEYS = new Set(["width", "height"]);

/**
 * The node as the schema gives it, or null. Its policy and ports (rare) are parsed by the schema, which fills their
 * defaults. `types`: the node types already found valid (a large graph repeats a few), each checked once.
 */
function canonicalNode(value: unknown, types: Set<string>): WorkflowNode | null {
  if (!isRecord(value) || !onlyKeys(value, NODE_KEYS)) return null;
  const { id, type, position, config, inputs, policy, ports, label, pinned, ui } = value;
  // The id's rule by hand: a zod parse per node cost ~5 ms of the editor's opening at 1,000 nodes.
  if (typeof id !== "string" || !NODE_ID_PATTERN.test(id) || !isNodeType(type, types)) return null;
  if (!isPoint(position) || !isRecord(config) || !isRecord(inputs)) return null;
  if ((label !== undefined && typeof label !== "string") || (pinned !== undefined && !isRecord(pinned)) || (ui !== undefined && !isRecord(ui))) return null;
  if (policy === undefined && ports === undefined) return value as WorkflowNode;
  // The whole node through its schema: policy and ports have nested defaults and rules of their own.
  const parsed = WorkflowNodeSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

function isNodeType(value: unknown, valid: Set<string>): boolean {
  if (typeof value !== "string") return false;
  if (valid.has(value)) return true;
  if (!WorkflowNodeSchema.shape.type.safeParse(value).success) return false;
  valid.add(value);
  return true;
}

function isEdge(value: unknown): boolean {
  if (!isRecord(value) || !onlyKeys(value, EDGE_KEYS)) return false;
  return nonEmpty(value.id) && nonEmpty(value.source) && nonEmpty(value.sourceHandle) && nonEmpty(value.target) && nonEmpty(value.targetHandle);
}

function isAnnotation(value: unknown): boolean {
  if (!isRecord(value) || !onlyKeys(value, ANNOTATION_KEYS)) return false;
  const { id, kind, position, size, text, color } = value;
  if (!nonEmpty(id) || (kind !== "frame" && kind !== "comment") || !isPoint(position) || typeof text !== "string") return false;
  if (color !== undefined && typeof color !== "string") return false;
  return size === undefined || (isRecord(size) && onlyKeys(size, SIZE_KEYS) && isNumber(size.width) && isNumber(size.height));
}

const isRecord = (value: unknown): value is Shape => typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
const nonEmpty = (value: unknown): boolean => typeof value === "string" && value.length > 0;
/** zod's number: finite. */
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;
const isPoint = (value: unknown): boolean => isRecord(value) && onlyKeys(value, POSITION_KEYS) && isNumber(value.x) && isNumber(value.y);

/** No key the schema would drop, and none set to undefined (a value JSON never has; the schema decides it). */
function onlyKeys(value: Shape, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key) || value[key] === undefined) return false;
  return true;
}
