import type { NodeDefinition } from "@weft/types";

/**
 * Cache keys (ComfyUI-style): a node's key covers its type, spec version, config and literal inputs
 * (the static part) and, for every input edge, the port, the handle it reads and the upstream node's
 * ref: the ref of the cache entry its outputs came from or went to. Refs stand for upstream keys
 * and so for upstream values: big values are never hashed, and keys stay small however long the
 * chain above.
 *
 * A key is kept in parts, never joined into one text, and found by a 53-bit hash of the parts: a
 * cache compares the parts on every hit (`CacheKey.equals`), so two keys that share a hash only
 * ever cost a miss. (Joining the parts into a text key cost more than half of a cheap node's run.)
 */
export class CacheKey {
  constructor(
    /** 53-bit hash of the other fields: a non-negative integer. */
    readonly hash: number,
    /** `type@version`, then the JSON of config and literal inputs (or the SHA-256 of a long one). */
    readonly node: string,
    readonly config: string,
    readonly literals: string,
    /** Per input edge, in edge order: port, handle, upstream ref. */
    readonly edges: readonly (string | number)[],
  ) {}

  equals(other: CacheKey): boolean {
    if (this === other) return true;
    if (this.hash !== other.hash || this.node !== other.node || this.config !== other.config || this.literals !== other.literals) return false;
    const a = this.edges;
    const b = other.edges;
    if (a.length !== b.length) return false;
    for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
    return true;
  }

  /** Readable form, e.g. `text:upper@1|{}|{}|text<value:7` (for logs and tests). */
  toString(): string {
    let text = `${this.node}|${this.config}|${this.literals}`;
    for (let k = 0; k < this.edges.length; k += 3) text += `|${this.edges[k]}<${this.edges[k + 1]}:${this.edges[k + 2]}`;
    return text;
  }
}

/**
 * The key's hash is built part by part in two 32-bit lanes (FNV-1a's multiplier and murmur2's), then
 * folded into 53 bits. Every text part ends with a char (0xffff) that JSON and ids never hold, so
 * "ab"+"c" and "a"+"bc" hash apart.
 */
export const LANE_A = 0x01000193;
export const LANE_B = 0x5bd1e995;
export const SEED_A = 0x811c9dc5;
export const SEED_B = 0x3c6ef372;

export function hashText(h: number, s: string, prime: number): number {
  for (let k = 0; k < s.length; k++) h = Math.imul(h ^ s.charCodeAt(k), prime);
  return Math.imul(h ^ 0xffff, prime);
}

/** Mixes in an integer of up to 53 bits (a ref). */
export function hashInteger(h: number, x: number, prime: number): number {
  return Math.imul(Math.imul(h ^ (x >>> 0), prime) ^ (Math.floor(x / 4294967296) | 0), prime);
}

/** murmur3's final avalanche, so nearby refs spread over the whole hash. */
function avalanche(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** The two lanes folded into a non-negative 53-bit integer. */
export function finishHash(a: number, b: number): number {
  return (avalanche(b) & 0x1fffff) * 4294967296 + (avalanche(a) >>> 0);
}

function sortedKeys(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const source = value;
  const keys = Object.keys(source).sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = source[key];
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export const EMPTY_JSON = "{}";
/** JSON up to this length is kept in the key as it is; longer JSON as its SHA-256 (base64, 44 chars). */
const MAX_PLAIN_JSON = 128;

/**
 * JSON of a config or literal-inputs object with keys in sorted order, so equal values give equal
 * text. One pass over the keys: the common case, scalars with keys in order, is JSON.stringify's
 * own output; anything else goes the slower, sorting way. Long JSON is replaced by its SHA-256 (a
 * hash holds no `{`, so it never equals a JSON text).
 */
export function objectJson(value: Record<string, unknown>): string {
  let empty = true;
  let simple = true;
  let previous = "";
  for (const key in value) {
    empty = false;
    const v = value[key];
    if ((v !== null && typeof v === "object") || key < previous) simple = false;
    previous = key;
  }
  if (empty) return EMPTY_JSON;
  const json = simple && isPlainObject(value) ? JSON.stringify(value) : (JSON.stringify(value, (_key, v: unknown) => sortedKeys(v)) ?? "undefined");
  return json.length <= MAX_PLAIN_JSON ? json : Bun.SHA256.hash(json, "base64");
}

/** Per node type: `type@version`, the lanes after it, and the lanes after it and two empty JSON parts. */
export interface NodeKeyHead {
  readonly node: string;
  readonly a: number;
  readonly b: number;
  readonly plainA: number;
  readonly plainB: number;
}

const heads = new WeakMap<NodeDefinition, NodeKeyHead>();

export function keyHead(def: NodeDefinition): NodeKeyHead {
  let head = heads.get(def);
  if (head === undefined) {
    const node = `${def.spec.type}@${def.spec.version}`;
    const a = hashText(SEED_A, node, LANE_A);
    const b = hashText(SEED_B, node, LANE_B);
    head = { node, a, b, plainA: hashText(hashText(a, EMPTY_JSON, LANE_A), EMPTY_JSON, LANE_A), plainB: hashText(hashText(b, EMPTY_JSON, LANE_B), EMPTY_JSON, LANE_B) };
    heads.set(def, head);
  }
  return head;
}

/**
 * Refs are integers: a cache entry's is ≥ 0 (given by its cache, never reused), outputs that are
 * not cached get one below NO_REF, unique in this process, so no key built on it ever matches
 * another run's; NO_REF stands for no outputs at all.
 */
export const NO_REF = -1;
let lastVolatileRef = NO_REF;

export function volatileRef(): number {
  return --lastVolatileRef;
}
