import { WORKFLOW_OUTPUT_TYPE, type NodeSpec, type PortSpec, type WorkflowEdge, type WorkflowNode } from "@weft/types";
import { findNode, isDraft, nodeList, refuse, type EditEnv } from "./builder-env.ts";
import type { BuilderIntent, InsertAnchor } from "./builder-intent.ts";
import { coerceConfig, coerceInput, fits, type CatalogEntry } from "./builder-ports.ts";
import type { Draft, NodeFacts } from "./builder-reads.ts";
import { keywords } from "./tool-match.ts";

type AddIntent = Extract<BuilderIntent, { kind: "add" }>;

/** Where the new node goes: fed from `from` (a node's output port) into `input`; its `output` takes over `split`'s edges. */
interface Placement {
  from: { node: WorkflowNode; port: PortSpec };
  input: PortSpec;
  takeOver?: { output: PortSpec; split: WorkflowEdge[] };
}

/** Verb forms the node titles do not use, in the words they do ("uppercases" → "upper case"). */
const PHRASES: readonly [RegExp, string][] = [
  [/\bupper-?cas(?:e|es|ed|ing)\b|\bcapitali[sz](?:e|es|ed|ing)\b/gi, "upper case"],
  [/\blower-?cas(?:e|es|ed|ing)\b/gi, "lower case"],
  [/\btitle-?cas(?:e|es|ed|ing)\b/gi, "title case"],
];

export function normalisePhrase(what: string): string {
  return PHRASES.reduce((text, [pattern, words]) => text.replace(pattern, words), what);
}

/** The node type the words name: its id, else the most words shared with its name and title (ties: the catalogue's order). */
export function chooseNodeType(what: string, catalog: readonly CatalogEntry[]): CatalogEntry | undefined {
  const lower = what.toLowerCase();
  const exact = catalog.find((e) => lower.includes(e.type.toLowerCase())) ?? catalog.find((e) => lower === e.title.toLowerCase());
  if (exact) return exact;
  const words = keywords(normalisePhrase(what));
  let best: CatalogEntry | undefined;
  let bestScore = 0;
  for (const entry of catalog) {
    const own = keywords(`${entry.type.slice(entry.type.indexOf(":") + 1)} ${entry.title}`);
    const score = [...own].filter((w) => words.has(w)).length;
    if (score > bestScore) {
      best = entry;
      bestScore = score;
    }
  }
  return best;
}

/**
 * Adds a node of the type the user named, wired between a node and its consumers where the
 * ports' types allow: after a node, before a node, or in front of a workflow output (the default
 * in a workflow session; a node session puts it after its node).
 */
export function draftInsert(intent: AddIntent, env: EditEnv): Draft {
  const { workflow, target } = env;
  let anchor: InsertAnchor = intent.anchor ?? (target.type === "node" ? { side: "after", node: target.nodeId } : { side: "output" });
  if (anchor.side !== "output" && !findNode(workflow, anchor.node) && /^outputs?$/i.test(anchor.node)) anchor = { side: "output" };

  let anchors: WorkflowNode[];
  if (anchor.side === "output") {
    anchors = workflow.nodes.filter((n) => n.type === WORKFLOW_OUTPUT_TYPE && workflow.edges.some((e) => e.target === n.id));
    if (anchors.length === 0) return refuse(`Workflow "${workflow.id}" has no connected output to put the node in front of; say where it goes, e.g. "add a preview node after <node>".`);
  } else {
    // In a node session too: new nodes may be wired to any node, validation judges the edges.
    const node = findNode(workflow, anchor.node);
    if (!node) return refuse(`Workflow "${workflow.id}" has no node "${anchor.node}". Its nodes are ${nodeList(workflow)}.`);
    anchors = [node];
  }
  const side = anchor.side;
  const neighbours = anchors.flatMap((a) =>
    side === "after" ? workflow.edges.filter((e) => e.source === a.id).map((e) => e.target) : workflow.edges.filter((e) => e.target === a.id).map((e) => e.source),
  );
  const read = env.reads.nodes([...anchors.map((a) => a.id), ...neighbours], true);
  if (!read.ok) return read.draft;
  const { facts, catalog } = read.value;

  // Types with inputs to wire: constants and interface nodes do not go between two nodes.
  const some = catalog
    .filter((e) => e.category !== "constants" && e.category !== "interface")
    .slice(0, 12)
    .map((e) => e.title)
    .join(", ");
  if (!intent.what) return refuse(`Which kind of node? Name its type, e.g. "add a preview node after <node>". Some types: ${some}.`);
  const chosen = chooseNodeType(intent.what, catalog);
  if (!chosen) return refuse(`No node type matches "${intent.what}". Some types: ${some}.`);
  const typed = env.reads.nodeType(chosen.type, catalog);
  if (!typed.ok) return typed.draft;
  const spec = typed.value;

  const placement = anchors.map((a) => (side === "after" ? placeAfter(a, spec, facts, env) : placeBefore(a, spec, facts, env))).find((p) => p !== undefined);
  const where = side === "output" ? "the workflow's output" : `node "${anchors[0].id}"`;
  if (!placement) return refuse(`A ${spec.title} node (${spec.type}) cannot be wired ${side === "after" ? "after" : "before"} ${where}: none of its ports fit the types there.`);

  const built = newNode(intent, spec, placement, env);
  if (isDraft(built)) return built;
  const edgeIds = new Set(workflow.edges.map((e) => e.id));
  const feed: WorkflowEdge = { id: uniqueId(`e_${built.id}`, edgeIds), source: placement.from.node.id, sourceHandle: placement.from.port.id, target: built.id, targetHandle: placement.input.id };
  const operations: Record<string, unknown>[] = [
    { op: "node.put", workflowId: workflow.id, node: built },
    { op: "edge.put", workflowId: workflow.id, edge: feed },
    // The same edge ids, re-sourced: an ordered (multi) input keeps its order.
    ...(placement.takeOver?.split ?? []).map((e) => ({ op: "edge.put", workflowId: workflow.id, edge: { ...e, source: built.id, sourceHandle: placement.takeOver?.output.id } })),
  ];
  const consumers = [...new Set((placement.takeOver?.split ?? []).map((e) => `"${e.target}"`))];
  const settings = Object.entries(built.config).map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
  const summary = `Add a ${spec.title} node "${built.id}"${settings.length > 0 ? ` (${settings.join(", ")})` : ""} ${consumers.length > 0 ? `between "${placement.from.node.id}" and ${consumers.join(", ")}` : `after "${placement.from.node.id}"`}`;
  return { kind: "change", summary, operations };
}

function placeAfter(anchor: WorkflowNode, spec: NodeSpec, facts: Map<string, NodeFacts>, env: EditEnv): Placement | undefined {
  const own = facts.get(anchor.id);
  if (!own) return undefined;
  const outgoing = env.workflow.edges.filter((e) => e.source === anchor.id);
  const used = own.outputs.filter((p) => outgoing.some((e) => e.sourceHandle === p.id));
  for (const port of [...used, ...own.outputs.filter((p) => !used.includes(p))]) {
    const input = bestInput(spec, port);
    if (!input) continue;
    const edges = outgoing.filter((e) => e.sourceHandle === port.id);
    const best: Placement = { from: { node: anchor, port }, input };
    for (const output of exactFirst(spec.outputs, port.type)) {
      const split = edges.filter((e) => {
        const into = facts.get(e.target)?.inputs.find((p) => p.id === e.targetHandle);
        return into !== undefined && fits(output.type, into.type);
      });
      if (split.length > (best.takeOver?.split.length ?? 0)) best.takeOver = { output, split };
    }
    return best;
  }
  return undefined;
}

function placeBefore(anchor: WorkflowNode, spec: NodeSpec, facts: Map<string, NodeFacts>, env: EditEnv): Placement | undefined {
  for (const edge of env.workflow.edges.filter((e) => e.target === anchor.id)) {
    const source = facts.get(edge.source);
    const port = source?.outputs.find((p) => p.id === edge.sourceHandle);
    const into = facts.get(anchor.id)?.inputs.find((p) => p.id === edge.targetHandle);
    if (!source || !port || !into) continue;
    const input = bestInput(spec, port);
    const output = exactFirst(spec.outputs, into.type).find((o) => fits(o.type, into.type));
    if (input && output) return { from: { node: source.node, port }, input, takeOver: { output, split: [edge] } };
  }
  return undefined;
}

/** The new node's input for a value of `port`'s type: a required one, else a list input (like a template's values), exact types first. */
function bestInput(spec: NodeSpec, port: PortSpec): PortSpec | undefined {
  const ok = exactFirst(spec.inputs, port.type).filter((p) => fits(port.type, p.type));
  return ok.find((p) => p.required) ?? ok.find((p) => p.multi) ?? ok[0];
}

function exactFirst(ports: readonly PortSpec[], type: PortSpec["type"]): PortSpec[] {
  return [...ports.filter((p) => p.type === type), ...ports.filter((p) => p.type !== type)];
}

/** The node itself: options the words name ("upper"), `name: value` settings, and every other required input given. */
function newNode(intent: AddIntent, spec: NodeSpec, placement: Placement, env: EditEnv): WorkflowNode | Draft {
  const config: Record<string, unknown> = {};
  const inputs: Record<string, unknown> = {};
  let label: string = spec.title;
  const words = new Set(
    normalisePhrase(intent.what)
      .toLowerCase()
      .split(/[^a-z0-9]+/),
  );
  for (const field of spec.config) {
    const option = field.kind === "select" ? field.options?.find((o) => o !== field.default && words.has(String(o).toLowerCase())) : undefined;
    if (option !== undefined) config[field.id] = option;
  }
  for (const [name, text] of Object.entries(intent.values)) {
    const key = name.toLowerCase();
    const field = spec.config.find((c) => c.id.toLowerCase() === key);
    const port = spec.inputs.find((p) => p.id.toLowerCase() === key);
    if (key === "label") label = text;
    else if (field) {
      const value = coerceConfig(text, field);
      if (!value.ok) return refuse(`${field.id} of a ${spec.title} node ${value.reason}.`);
      config[field.id] = value.value;
    } else if (port && port.id !== placement.input.id) {
      const value = coerceInput(text, port);
      if (!value.ok) return refuse(`${port.id} of a ${spec.title} node ${value.reason}.`);
      inputs[port.id] = value.value;
    } else {
      return refuse(
        `A ${spec.title} node has no setting "${name}". It has: ${[...spec.config.map((c) => c.id), ...spec.inputs.filter((p) => p.id !== placement.input.id).map((p) => p.id), "label"].join(", ")}.`,
      );
    }
  }
  const missing = [
    ...spec.config.filter((c) => c.required && c.default === undefined && !(c.id in config)).map((c) => c.id),
    ...spec.inputs.filter((p) => p.required && p.default === undefined && p.id !== placement.input.id && !(p.id in inputs)).map((p) => p.id),
  ];
  if (missing.length > 0) {
    return refuse(
      `A ${spec.title} node needs ${missing.join(" and ")}: say it with the request, e.g. "add a ${intent.what || spec.title.toLowerCase()} node after ${placement.from.node.id} with ${missing.map((m) => `${m}: …`).join(", ")}".`,
    );
  }
  const id = uniqueId(spec.type.slice(spec.type.indexOf(":") + 1), new Set(env.workflow.nodes.map((n) => n.id)));
  return { id, type: spec.type, position: freeSpot(placement, env.workflow.nodes), config, inputs, label };
}

/** A node's rough footprint on the canvas: closer than this to another node, the two would overlap. */
const FOOTPRINT = { x: 240, y: 200 };

/** Rows tried above and below the chain before giving up on a free one. */
const MAX_ROWS = 20;

/**
 * Between the node it follows and its first consumer, in line with them when there is room, else in
 * the nearest row (one footprint below, one above, two below…) where it overlaps no node.
 */
function freeSpot(placement: Placement, nodes: readonly WorkflowNode[]): { x: number; y: number } {
  const from = placement.from.node.position;
  const consumer = nodes.find((n) => n.id === placement.takeOver?.split[0].target);
  const x = consumer ? Math.round((from.x + consumer.position.x) / 2) : from.x + FOOTPRINT.x + 10;
  const y = consumer ? Math.round((from.y + consumer.position.y) / 2) : from.y;
  const free = (dy: number) => nodes.every((n) => Math.abs(n.position.x - x) >= FOOTPRINT.x || Math.abs(n.position.y - (y + dy)) >= FOOTPRINT.y);
  if (free(0)) return { x, y };
  for (let row = 1; row <= MAX_ROWS; row++) {
    for (const dy of [row * FOOTPRINT.y, -row * FOOTPRINT.y]) if (free(dy)) return { x, y: y + dy };
  }
  return { x, y: y + FOOTPRINT.y };
}

function uniqueId(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}_${i}`)) return `${base}_${i}`;
}
