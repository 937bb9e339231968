import {
  ERROR_OUTPUT_ID,
  WORKFLOW_INPUT_TYPE,
  WORKFLOW_OUTPUT_TYPE,
  portTypeMismatch,
  valueMatchesPortType,
  type NodeCatalog,
  type NodeDefinition,
  type NodeValues,
  type PortSpec,
  type ValidationIssue,
  type Workflow,
  type WorkflowEdge,
  type WorkflowNode,
} from "@weft/types";
import { DEFAULT_POLICY, NO_LITERALS, type CompiledGraph, type ResolvedPolicy } from "./compiled-graph.ts";
import { checkInterfaceNode, checkNodeConfig } from "./config-checks.ts";
import { findCycles } from "./find-cycles.ts";
import { IdIndex } from "./id-index.ts";
import { listPortIds, nodePorts, outputPort, type NodePorts } from "./node-ports.ts";
import { pinnedDefinition } from "./pinned.ts";

export interface CompileResult {
  graph?: CompiledGraph;
  issues: ValidationIssue[];
}

/** A retrying node waits this long before its first retry unless its policy says otherwise. */
const DEFAULT_RETRY_BACKOFF_MS = 200;

function resolvePolicy(node: WorkflowNode): ResolvedPolicy {
  const p = node.policy;
  if (!p) return DEFAULT_POLICY;
  return {
    onError: p.onError ?? "continue",
    retries: p.retries ?? 0,
    retryBackoffMs: p.retryBackoffMs ?? DEFAULT_RETRY_BACKOFF_MS,
    ...(p.timeoutMs !== undefined ? { timeoutMs: p.timeoutMs } : {}),
  };
}

function literalFits(value: unknown, port: PortSpec): boolean {
  if (port.multi && Array.isArray(value)) return value.every((v) => valueMatchesPortType(v, port.type));
  return valueMatchesPortType(value, port.type);
}

function danglingEdge(edge: WorkflowEdge, end: "source" | "target"): ValidationIssue {
  return {
    code: "DANGLING_EDGE",
    edgeId: edge.id,
    message: `edge "${edge.id}" has ${end} "${edge[end]}", but there is no node with that id`,
    hint: `point the edge's ${end} at an existing node or delete the edge`,
  };
}

function suggestionHint(suggestions: string[]): string {
  const known = "`weft nodes` lists the known types";
  return suggestions.length > 0 ? `did you mean ${suggestions.map((s) => `"${s}"`).join(" or ")}? (${known})` : `use a known node type (${known})`;
}

/**
 * What the phases of `compileGraph` build up, node by node and edge by edge. Each phase reads what
 * the phases before it set and adds its issues; `assemble` turns a build without issues into the
 * CompiledGraph the scheduler runs.
 */
export interface GraphBuild extends Omit<CompiledGraph, "size" | "withDefaults" | "requiredIds" | "singleNodeOutputs" | "runs"> {
  readonly catalog: NodeCatalog;
  /** Node ids the schema check already reported: edges to them are not dangling too. */
  readonly malformedNodeIds: ReadonlySet<string> | undefined;
  readonly issues: ValidationIssue[];
  readonly n: number;
  readonly edges: readonly WorkflowEdge[];
  /** Per node, its ports (undefined where its type is unknown). */
  readonly ports: (NodePorts | undefined)[];
  /** Per node, its incoming edges (set by linkEdges; orderNodes counts down a copy). */
  inCount: Int32Array;
}

export function startBuild(workflow: Workflow, catalog: NodeCatalog, malformedNodeIds?: ReadonlySet<string>): GraphBuild {
  const n = workflow.nodes.length;
  const none = new Int32Array(0);
  const ids = new Array<string>(n);
  return {
    workflow,
    catalog,
    malformedNodeIds,
    issues: [],
    n,
    edges: workflow.edges ?? [],
    ids,
    indexOf: new IdIndex(n, ids),
    defs: new Array<NodeDefinition>(n),
    ports: new Array<NodePorts | undefined>(n),
    configs: new Array<Record<string, unknown>>(n),
    literals: new Array<NodeValues>(n),
    policies: new Array<ResolvedPolicy>(n),
    partial: new Uint8Array(n),
    cacheable: new Uint8Array(n),
    interfaceInputs: [],
    interfaceOutputs: [],
    inCount: none,
    inStart: none,
    inSrc: none,
    inHandle: [],
    inPort: [],
    inMulti: new Uint8Array(0),
    inFirst: new Uint8Array(0),
    outStart: none,
    outDst: none,
  };
}

/**
 * Checks the graph of a workflow (everything but its JSON schema and its edge ids, which only the
 * document uses: see `duplicateEdgeIds`) and compiles it for the scheduler. Every problem is
 * collected. Linear in nodes + edges: maps and arrays, Kahn's algorithm, no recursion.
 */
export function compileGraph(workflow: Workflow, catalog: NodeCatalog, malformedNodeIds?: ReadonlySet<string>): CompileResult {
  const build = startBuild(workflow, catalog, malformedNodeIds);
  checkNodes(build);
  checkDuplicateIds(build);
  linkEdges(build);
  checkInputs(build);
  orderNodes(build);
  checkInterface(build);
  return assemble(build);
}

/** Per node: its type, config, ports, policy and literal inputs (a single literal for a multi input becomes a list of one). */
export function checkNodes(b: GraphBuild): void {
  const { issues, catalog, ids, indexOf, defs, ports, configs, literals, policies, partial, cacheable, interfaceInputs, interfaceOutputs } = b;
  const nodes = b.workflow.nodes;
  // Nodes of one type mostly come in runs (a chain, a fan-out): the catalog is asked again only when the type changes.
  let lastType: string | undefined;
  let lastDef: NodeDefinition | undefined;
  for (let i = 0; i < b.n; i++) {
    const node = nodes[i];
    ids[i] = node.id;
    // One index operation per node (the first of two nodes with one id keeps it); duplicates are looked for only when the index came out short.
    indexOf.add(node.id, i);
    const lit = node.inputs ?? NO_LITERALS;
    literals[i] = lit;
    policies[i] = resolvePolicy(node);

    const def = lastType !== undefined && node.type === lastType ? lastDef : catalog.get(node.type);
    lastType = node.type;
    lastDef = def;
    if (!def) {
      issues.push({ code: "UNKNOWN_NODE_TYPE", nodeId: node.id, message: `unknown node type "${node.type}"`, hint: suggestionHint(catalog.suggest(node.type)) });
      continue;
    }
    defs[i] = def;
    const spec = def.spec;
    const isInterface = node.type === WORKFLOW_INPUT_TYPE || node.type === WORKFLOW_OUTPUT_TYPE;
    if (isInterface) {
      const cfg = checkInterfaceNode(node, issues);
      if (cfg) {
        const binding = { name: cfg.name, node: i, type: cfg.portType, required: cfg.required, default: cfg.default };
        (node.type === WORKFLOW_INPUT_TYPE ? interfaceInputs : interfaceOutputs).push(binding);
      }
    }
    configs[i] = checkNodeConfig(node, spec, isInterface, issues);
    const p = nodePorts(node, spec);
    ports[i] = p;
    if (spec.flags?.acceptsPartialInputs) partial[i] = 1;
    // A pinned node is not run, and its pinned outputs are never cached as what it computes.
    if (node.pinned !== undefined) defs[i] = pinnedDefinition(spec, node.pinned);
    else if (node.policy?.cacheable ?? spec.flags?.idempotent) cacheable[i] = 1;

    let hasLiterals = false;
    for (const key in lit) {
      hasLiterals = true;
      const value = lit[key];
      const port = p.input(key);
      // A multi input always receives a list: a single literal value becomes a list of one.
      if (port?.multi && value !== undefined && !Array.isArray(value)) {
        if (literals[i] === lit) literals[i] = { ...lit };
        literals[i][key] = [value];
      }
      if (!port) {
        issues.push({
          code: "UNKNOWN_PORT",
          nodeId: node.id,
          message: `${node.type} has no input "${key}" (in the node's literal inputs)`,
          hint: `remove inputs.${key} or rename it to one of: ${listPortIds(p.inputs)}`,
        });
      } else if (value !== undefined && !literalFits(value, port)) {
        issues.push({
          code: "PORT_TYPE_MISMATCH",
          nodeId: node.id,
          message: `literal input "${key}" is ${JSON.stringify(value)?.slice(0, 60)}, not a ${port.type}${port.multi ? " (or a list of them)" : ""}`,
          hint: `set inputs.${key} to a ${port.type} value`,
        });
      }
    }
    // Every node of a big workflow has its own empty `inputs`: the run reads one shared object instead, which stays in the CPU's cache.
    if (!hasLiterals) literals[i] = NO_LITERALS;
  }
}

/** Two nodes with one id: the first keeps it (edges point at the first). */
export function checkDuplicateIds(b: GraphBuild): void {
  const { ids, indexOf } = b;
  if (indexOf.size === b.n) return;
  const seen = new Set<string>();
  for (let i = 0; i < b.n; i++) {
    const id = ids[i];
    if (!seen.has(id)) seen.add(id);
    else b.issues.push({ code: "DUPLICATE_ID", nodeId: id, message: `two nodes have the id "${id}"`, hint: "give every node a unique id" });
  }
}

/** Edges: endpoints, ports, types; then incoming/outgoing adjacency in edge order. */
export function linkEdges(b: GraphBuild): void {
  const { issues, edges, indexOf, ports, policies, malformedNodeIds, n } = b;
  const nodes = b.workflow.nodes;
  const m = edges.length;
  const edgeSrc = new Int32Array(m).fill(-1);
  const edgeDst = new Int32Array(m).fill(-1);
  const edgeMulti = new Uint8Array(m);
  const inCount = new Int32Array(n + 1);
  const outCount = new Int32Array(n + 1);
  // The ends of the edge before, and of the one before that: where this edge's ends are looked for first (`IdIndex.near`).
  let lastS = 0;
  let lastT = 0;
  let prevS = 0;
  let prevT = 0;
  for (let k = 0; k < m; k++) {
    const edge = edges[k];
    const s = indexOf.near(edge.source, lastS, lastT, prevS);
    const t = indexOf.near(edge.target, lastT, lastS, prevT);
    if (s === undefined && !malformedNodeIds?.has(edge.source)) issues.push(danglingEdge(edge, "source"));
    if (t === undefined && !malformedNodeIds?.has(edge.target)) issues.push(danglingEdge(edge, "target"));
    if (s === undefined || t === undefined) continue;
    prevS = lastS;
    prevT = lastT;
    lastS = s;
    lastT = t;
    edgeSrc[k] = s;
    edgeDst[k] = t;
    inCount[t]++;
    outCount[s]++;
    const sp = ports[s];
    const tp = ports[t];
    if (!sp || !tp) continue;
    const routes = policies[s].onError === "route";
    const out = outputPort(sp, edge.sourceHandle, routes);
    if (!out) {
      const routeHint = edge.sourceHandle === ERROR_OUTPUT_ID ? `set policy.onError to "route" on node "${edge.source}" to get its ${ERROR_OUTPUT_ID} output, or ` : "";
      issues.push({
        code: "UNKNOWN_PORT",
        edgeId: edge.id,
        nodeId: edge.source,
        message: `${nodes[s].type} has no output "${edge.sourceHandle}" (edge "${edge.id}")`,
        hint: `${routeHint}connect from one of its outputs: ${listPortIds(sp.outputs, routes ? ERROR_OUTPUT_ID : undefined)}`,
      });
    }
    const inp = tp.input(edge.targetHandle);
    if (!inp) {
      issues.push({
        code: "UNKNOWN_PORT",
        edgeId: edge.id,
        nodeId: edge.target,
        message: `${nodes[t].type} has no input "${edge.targetHandle}" (edge "${edge.id}")`,
        hint: `connect to one of its inputs: ${listPortIds(tp.inputs)}`,
      });
      continue;
    }
    edgeMulti[k] = inp.multi ? 1 : 0;
    if (!out) continue;
    const mismatch = portTypeMismatch(out.type, inp.type);
    if (mismatch) {
      issues.push({
        code: "PORT_TYPE_MISMATCH",
        edgeId: edge.id,
        nodeId: edge.target,
        message: `edge "${edge.id}": ${mismatch} ("${edge.source}".${edge.sourceHandle} is ${out.type}, "${edge.target}".${edge.targetHandle} is ${inp.type})`,
        hint: `feed "${edge.target}".${edge.targetHandle} from a ${inp.type} output, or put a conversion node in between`,
      });
    }
  }

  const inStart = new Int32Array(n + 1);
  const outStart = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    inStart[i + 1] = inStart[i] + inCount[i];
    outStart[i + 1] = outStart[i] + outCount[i];
  }
  const linked = inStart[n];
  const inSrc = new Int32Array(linked);
  const inHandle = new Array<string>(linked);
  const inPort = new Array<string>(linked);
  const inMulti = new Uint8Array(linked);
  const outDst = new Int32Array(linked);
  const inFill = inStart.slice(0, n);
  const outFill = outStart.slice(0, n);
  for (let k = 0; k < m; k++) {
    const s = edgeSrc[k];
    if (s < 0) continue;
    const t = edgeDst[k];
    const at = inFill[t]++;
    inSrc[at] = s;
    inHandle[at] = edges[k].sourceHandle;
    inPort[at] = edges[k].targetHandle;
    inMulti[at] = edgeMulti[k];
    outDst[outFill[s]++] = t;
  }
  // CSR adjacency: node i's incoming edges are at [inStart[i], inStart[i + 1]), its outgoing ones likewise.
  Object.assign(b, { inCount, inStart, inSrc, inHandle, inPort, inMulti, inFirst: new Uint8Array(linked), outStart, outDst });
}

/** Per node: two edges into one single input, and required inputs with nothing to fill them. */
export function checkInputs(b: GraphBuild): void {
  const { issues, ids, ports, literals, inStart, inPort, inMulti, inFirst } = b;
  const nodes = b.workflow.nodes;
  for (let i = 0; i < b.n; i++) {
    const from = inStart[i];
    const to = inStart[i + 1];
    if (to - from === 1) inFirst[from] = 1;
    else if (to - from > 1) {
      const seen = new Map<string, number>();
      for (let e = from; e < to; e++) {
        const count = seen.get(inPort[e]) ?? 0;
        seen.set(inPort[e], count + 1);
        if (count === 0) inFirst[e] = 1;
        else if (count === 1 && !inMulti[e] && ports[i]?.input(inPort[e])) {
          issues.push({
            code: "DUPLICATE_INPUT",
            nodeId: ids[i],
            message: `input "${inPort[e]}" of "${ids[i]}" has more than one incoming edge, but it takes a single value`,
            hint: `keep one edge into "${ids[i]}".${inPort[e]} (only inputs marked multi take several)`,
          });
        }
      }
    }
    const p = ports[i];
    if (!p || p.unfilledIds.length === 0) continue;
    for (const id of p.unfilledIds) {
      if (literals[i][id] !== undefined) continue;
      let connected = false;
      for (let e = from; e < to && !connected; e++) connected = inPort[e] === id;
      if (!connected) {
        issues.push({
          code: "MISSING_REQUIRED_INPUT",
          nodeId: ids[i],
          message: `required input "${id}" of "${ids[i]}" (${nodes[i].type}) has no edge and no value`,
          hint: `connect an edge to "${ids[i]}".${id} or set inputs.${id} on the node`,
        });
      }
    }
  }
}

/** Kahn's algorithm: whatever cannot be ordered sits on or behind a cycle, reported cycle by cycle. */
export function orderNodes(b: GraphBuild): void {
  const { n, ids, outStart, outDst } = b;
  const pending = b.inCount.slice(0, n);
  const queue = new Int32Array(n);
  let tail = 0;
  for (let i = 0; i < n; i++) if (pending[i] === 0) queue[tail++] = i;
  for (let head = 0; head < tail; head++) {
    const i = queue[head];
    for (let e = outStart[i]; e < outStart[i + 1]; e++) if (--pending[outDst[e]] === 0) queue[tail++] = outDst[e];
  }
  if (tail === n) return;
  const stuck = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (pending[i] > 0) stuck[i] = 1;
  for (const cycle of findCycles(stuck, outStart, outDst)) {
    const names = cycle.map((i) => ids[i]);
    const path = [...names, names[0]].map((id) => `"${id}"`).join(" → ");
    b.issues.push({
      code: "CYCLE",
      nodeId: names[0],
      nodeIds: names,
      message: `the nodes form a cycle: ${path}`,
      hint: `a workflow must not loop back on itself: remove one of the edges along ${path}`,
    });
  }
}

/** Interface names are unique among the inputs, and among the outputs. */
export function checkInterface(b: GraphBuild): void {
  const { ids, interfaceInputs, interfaceOutputs } = b;
  for (const list of [interfaceInputs, interfaceOutputs]) {
    const seen = new Map<string, number>();
    for (const binding of list) {
      const first = seen.get(binding.name);
      if (first === undefined) seen.set(binding.name, binding.node);
      else {
        const kind = list === interfaceInputs ? "input" : "output";
        b.issues.push({
          code: "INVALID_INTERFACE",
          nodeId: ids[binding.node],
          message: `interface ${kind} "${binding.name}" is declared twice ("${ids[first]}" and "${ids[binding.node]}")`,
          hint: `rename config.name of one of the two ${kind} nodes`,
        });
      }
    }
  }
}

/** The CompiledGraph, when no phase found a problem. */
export function assemble(b: GraphBuild): CompileResult {
  if (b.issues.length > 0) return { issues: b.issues };
  uncacheInterfaces(b);
  const { catalog: _catalog, malformedNodeIds: _malformed, issues, n, edges: _edges, ports, inCount: _inCount, ...parts } = b;
  // One pass over the ports for both lists (a graph of 100,000 nodes has 100,000 of each).
  const withDefaults = new Array<readonly PortSpec[]>(n);
  const requiredIds = new Array<readonly string[]>(n);
  for (let i = 0; i < n; i++) {
    const p = ports[i]!;
    withDefaults[i] = p.withDefaults;
    requiredIds[i] = p.requiredIds;
  }
  const graph: CompiledGraph = {
    ...parts,
    size: n,
    withDefaults,
    requiredIds,
    singleNodeOutputs: n === 1 && b.interfaceOutputs.length === 0,
    runs: 0,
  };
  return { graph, issues };
}

/**
 * Interface nodes pass their value on: a cache hit saves them nothing, and their key hashes the whole
 * value (an agent step's prompt and history, at every step). They keep a key only where a cacheable
 * node reads them, whose own key is built on theirs (so a run with the same inputs hits its cache).
 * Outputs first: an input may feed an output directly.
 */
function uncacheInterfaces(b: GraphBuild): void {
  const { cacheable, outStart, outDst } = b;
  for (const binding of [...b.interfaceOutputs, ...b.interfaceInputs]) {
    const i = binding.node;
    let read = false;
    for (let e = outStart[i]; e < outStart[i + 1] && !read; e++) read = cacheable[outDst[e]] === 1;
    if (!read) cacheable[i] = 0;
  }
}
