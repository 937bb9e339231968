import type { NodeDefinition, NodeValues } from "@weft/types";
import { NO_LITERALS, type CompiledGraph } from "../compiled-graph.ts";
import { finishHash, hashInteger, hashText, hashWord, LANE_A, LANE_B, SEED_A, SEED_B } from "./key-hash.ts";
import { EMPTY_PART, hashObjectPart, hasNoKeys, objectPart, objectPartsEqual, objectPartText, type ObjectPart } from "./object-part.ts";

/**
 * Refs are integers: a cache entry's is ≥ 0 (given by its cache, never reused), outputs that are
 * not cached get one below NO_REF, unique in this process, so no key built on it ever matches
 * another run's; NO_REF stands for no outputs at all.
 */
export const NO_REF = -1;
/** The outputs of a key no cache has stored (frozen: never written). */
const NO_OUTPUTS: NodeValues = Object.freeze({}) as NodeValues;
/** The edges array of every key of a node with one input edge or none (frozen: never written). */
const NO_EDGES = Object.freeze([]) as unknown as (string | number)[];

/**
 * Cache keys (ComfyUI-style): a node's key covers its type, spec version, config and literal inputs
 * (the static part) and, for every input edge, the port, the handle it reads and the upstream node's
 * ref: the ref of the cache entry its outputs came from or went to. Refs stand for upstream keys
 * and so for upstream values: big values are never hashed, and keys stay small however long the
 * chain above.
 *
 * A key is kept in parts, never joined into one text, and found by a 53-bit hash of the parts
 * (key-hash.ts): a cache compares the parts on every hit (`equals`), so two keys that share a hash
 * only ever cost a miss. (Joining the parts into a text key cost more than half of what the engine
 * spends on a cheap node.)
 */
export class CacheKey {
  /** The outputs kept under this key once a cache stores it: a stored key is its own entry (`CacheEntry`), one object per stored node. */
  outputs: NodeValues = NO_OUTPUTS;
  /** The entry's ref (`CacheEntry.ref`) once a cache stores it; NO_REF until then. */
  ref: number = NO_REF;

  constructor(
    /** 53-bit hash of the other fields: a non-negative integer. */
    readonly hash: number,
    /** Type, version, config and literal inputs: one object per node of a compiled graph, shared by the keys of its runs. */
    readonly head: KeyHead,
    /** With two input edges or more, per edge in edge order: port, handle, upstream ref; else empty. */
    readonly edges: readonly (string | number)[],
    /** The one input edge of a node that has exactly one (most have): its port, handle and upstream ref, kept without an array; else "", "" and NO_REF. */
    readonly port = "",
    readonly handle = "",
    readonly upstream = NO_REF,
  ) {}

  /** As an entry, the key it is stored under: itself. */
  get key(): CacheKey {
    return this;
  }

  /** This key, not yet stored: a cache stores a copy of a key that is already an entry, so no entry ever changes. */
  unstored(): CacheKey {
    return this.ref === NO_REF ? this : new CacheKey(this.hash, this.head, this.edges, this.port, this.handle, this.upstream);
  }

  equals(other: CacheKey): boolean {
    if (this === other) return true;
    if (this.hash !== other.hash || this.port !== other.port || this.handle !== other.handle || this.upstream !== other.upstream) return false;
    if (!headsEqual(this.head, other.head)) return false;
    const a = this.edges;
    const b = other.edges;
    if (a.length !== b.length) return false;
    for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
    return true;
  }

  /** Readable form, e.g. `text:upper@1|{}|{}|text<value:7` (for logs and tests). */
  toString(): string {
    const head = this.head;
    let text = `${head.node}|${objectPartText(head.config)}|${objectPartText(head.literals)}`;
    if (this.port !== "") text += `|${this.port}<${this.handle}:${this.upstream}`;
    for (let k = 0; k < this.edges.length; k += 3) text += `|${this.edges[k]}<${this.edges[k + 1]}:${this.edges[k + 2]}`;
    return text;
  }
}

/** A key's static part: `type@version`, config and literal inputs, with the hash lanes after them. */
export interface KeyHead {
  readonly node: string;
  readonly config: ObjectPart;
  readonly literals: ObjectPart;
  readonly a: number;
  readonly b: number;
}

function headsEqual(x: KeyHead, y: KeyHead): boolean {
  return x === y || (x.node === y.node && objectPartsEqual(x.config, y.config) && objectPartsEqual(x.literals, y.literals));
}

/** Per node type: `type@version` and the hash lanes after it. */
interface TypeHead {
  readonly node: string;
  readonly a: number;
  readonly b: number;
  /** The fixed part of this type with an empty config (most nodes have one). */
  empty?: FixedPart;
}

const typeHeads = new WeakMap<NodeDefinition, TypeHead>();
/** The head asked for last: nodes of one type mostly come one after another, and a WeakMap lookup per node costs more than the rest of the head. */
let lastDef: NodeDefinition | undefined;
let lastHead: TypeHead | undefined;

function typeHead(def: NodeDefinition): TypeHead {
  if (def === lastDef) return lastHead!;
  let head = typeHeads.get(def);
  if (head === undefined) {
    const node = `${def.spec.type}@${def.spec.version}`;
    head = { node, a: hashText(SEED_A, node, LANE_A), b: hashText(SEED_B, node, LANE_B) };
    typeHeads.set(def, head);
  }
  lastDef = def;
  lastHead = head;
  return head;
}

/** A node's type and config as a key part, with the hash lanes after them. */
interface FixedPart {
  readonly type: TypeHead;
  readonly config: ObjectPart;
  readonly a: number;
  readonly b: number;
  /** The key head with empty literal inputs too (most nodes have none): made on first use, shared by every such node. */
  bare?: KeyHead;
}

/**
 * Key parts of configs and literal inputs met before, by object: a workflow that is not frozen is
 * compiled again for every run, but keeps its node objects, and a config's text (a prompt) would
 * otherwise be hashed again at every node of every run. Empty objects, and literal inputs of scalars
 * only, are not remembered (see `fixedPart`, `literalsPart`).
 */
const fixedParts = new WeakMap<Record<string, unknown>, FixedPart>();
const literalParts = new WeakMap<NodeValues, ObjectPart>();

function fixedPart(type: TypeHead, configObject: Record<string, unknown>): FixedPart {
  // An empty config needs no memo by object: a workflow's nodes each have their own `{}`, and a
  // WeakMap entry per node costs a lookup per node and work at every collection.
  if (hasNoKeys(configObject)) return (type.empty ??= { type, config: EMPTY_PART, a: hashObjectPart(type.a, EMPTY_PART, LANE_A), b: hashObjectPart(type.b, EMPTY_PART, LANE_B) });
  let fixed = fixedParts.get(configObject);
  if (fixed?.type !== type) {
    const config = objectPart(configObject);
    fixed = { type, config, a: hashObjectPart(type.a, config, LANE_A), b: hashObjectPart(type.b, config, LANE_B) };
    fixedParts.set(configObject, fixed);
  }
  return fixed;
}

function literalsPart(literals: NodeValues): ObjectPart {
  if (literals === NO_LITERALS || hasNoKeys(literals)) return EMPTY_PART;
  let part = literalParts.get(literals);
  if (part === undefined) {
    part = objectPart(literals);
    // Only a text part (nested values as sorted JSON) is worth remembering: scalar entries are
    // collected again for less than a WeakMap entry per node costs to look up and to keep.
    if (typeof part === "string") literalParts.set(literals, part);
  }
  return part;
}

/** Node `i`'s key head, with `literals` (its own, or those the run gives it) as its literal inputs. */
function nodeHead(g: CompiledGraph, i: number, literals: ObjectPart): KeyHead {
  const fixed = fixedPart(typeHead(g.defs[i]), g.configs[i]);
  if (literals === EMPTY_PART) {
    return (fixed.bare ??= { node: fixed.type.node, config: fixed.config, literals, a: hashObjectPart(fixed.a, EMPTY_PART, LANE_A), b: hashObjectPart(fixed.b, EMPTY_PART, LANE_B) });
  }
  return { node: fixed.type.node, config: fixed.config, literals, a: hashObjectPart(fixed.a, literals, LANE_A), b: hashObjectPart(fixed.b, literals, LANE_B) };
}

/**
 * Per compiled graph run more than once, by node: its key head. A graph's types, configs and literal
 * inputs never change (a frozen workflow's graph is kept and run again: an agent's deliberation at
 * every step, a kept revision at every run; a skill's graph at every call in a run), so each node's
 * head is made once per graph, not once per run.
 */
const graphHeads = new WeakMap<CompiledGraph, readonly (KeyHead | undefined)[]>();

/**
 * The key heads of `g`'s cacheable nodes (undefined for the others: a prompt's config is never hashed
 * for a node that is not cached), from the graph's second run on (`CompiledGraph.runs`, counted here):
 * a graph run asks once, and hands them to every `cacheKey` call. Not at its first run: most graphs
 * (every workflow that is not frozen) are compiled for one run, and keeping anything for them cost
 * (measured: keeping its heads, or only a WeakMap entry, 10–14% more CPU per node on a 100,000-node
 * first run). All are made at once, into a new array: filled node by node during a run, a long array
 * outlives a young-generation collection and is then scanned whole at every later one (measured: 10%
 * more CPU per node on a 10,000-node run).
 */
export function keyHeads(g: CompiledGraph): readonly (KeyHead | undefined)[] | undefined {
  if (g.runs++ === 0) return undefined;
  let heads = graphHeads.get(g);
  if (heads === undefined) {
    const made: (KeyHead | undefined)[] = [];
    for (let i = 0; i < g.size; i++) made.push(g.cacheable[i] ? nodeHead(g, i, literalsPart(g.literals[i])) : undefined);
    graphHeads.set(g, (heads = made));
  }
  return heads;
}

/**
 * An edge's label (port and handle) goes into the hash as the label's own hash, kept for the next
 * edge: a fan-in's edges, and a chain's nodes one after another, mostly share one label, which is
 * then hashed once.
 */
const label = { port: "", handle: "", a: 0, b: 0 };

function setLabel(port: string, handle: string): void {
  label.port = port;
  label.handle = handle;
  label.a = hashText(hashText(SEED_A, port, LANE_A), handle, LANE_A);
  label.b = hashText(hashText(SEED_B, port, LANE_B), handle, LANE_B);
}
setLabel("", "");

/**
 * Node `i`'s cache key: its head (type, version, config, literal inputs: from `heads` (`keyHeads`), else
 * made here, and made anew when the run overrides the literals) and, per input edge,
 * the port, the handle and the upstream node's ref.
 */
export function cacheKey(g: CompiledGraph, i: number, refs: Float64Array, override: NodeValues | undefined, heads: readonly (KeyHead | undefined)[] | undefined): CacheKey {
  const head = override === undefined ? (heads?.[i] ?? nodeHead(g, i, literalsPart(g.literals[i]))) : nodeHead(g, i, objectPart(override));
  let a = head.a;
  let b = head.b;
  const from = g.inStart[i];
  const to = g.inStart[i + 1];
  const count = to - from;
  // Most nodes have one input edge or none: neither needs an array (the key holds the one edge itself).
  if (count === 1) {
    const port = g.inPort[from];
    const handle = g.inHandle[from];
    if (port !== label.port || handle !== label.handle) setLabel(port, handle);
    const ref = refs[g.inSrc[from]];
    a = hashInteger(hashWord(a, label.a, LANE_A), ref, LANE_A);
    b = hashInteger(hashWord(b, label.b, LANE_B), ref, LANE_B);
    return new CacheKey(finishHash(a, b), head, NO_EDGES, port, handle, ref);
  }
  const edges: (string | number)[] = count === 0 ? NO_EDGES : new Array<string | number>(3 * count);
  for (let e = from, k = 0; e < to; e++, k += 3) {
    const port = g.inPort[e];
    const handle = g.inHandle[e];
    if (port !== label.port || handle !== label.handle) setLabel(port, handle);
    const ref = refs[g.inSrc[e]];
    edges[k] = port;
    edges[k + 1] = handle;
    edges[k + 2] = ref;
    a = hashInteger(hashWord(a, label.a, LANE_A), ref, LANE_A);
    b = hashInteger(hashWord(b, label.b, LANE_B), ref, LANE_B);
  }
  return new CacheKey(finishHash(a, b), head, edges);
}

let lastVolatileRef = NO_REF;

export function volatileRef(): number {
  return --lastVolatileRef;
}
