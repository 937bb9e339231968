import type { NodeDefinition } from "@weft/types";
import { hashText, LANE_A, LANE_B, SEED_A, SEED_B } from "./key-hash.ts";
import { EMPTY_PART, hashObjectPart, objectPartsEqual, objectPartText, type ObjectPart } from "./object-part.ts";

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
  constructor(
    /** 53-bit hash of the other fields: a non-negative integer. */
    readonly hash: number,
    /** `type@version`. */
    readonly node: string,
    readonly config: ObjectPart,
    readonly literals: ObjectPart,
    /** Per input edge, in edge order: port, handle, upstream ref. */
    readonly edges: readonly (string | number)[],
  ) {}

  equals(other: CacheKey): boolean {
    if (this === other) return true;
    if (this.hash !== other.hash || this.node !== other.node || !objectPartsEqual(this.config, other.config) || !objectPartsEqual(this.literals, other.literals)) return false;
    const a = this.edges;
    const b = other.edges;
    if (a.length !== b.length) return false;
    for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
    return true;
  }

  /** Readable form, e.g. `text:upper@1|{}|{}|text<value:7` (for logs and tests). */
  toString(): string {
    let text = `${this.node}|${objectPartText(this.config)}|${objectPartText(this.literals)}`;
    for (let k = 0; k < this.edges.length; k += 3) text += `|${this.edges[k]}<${this.edges[k + 1]}:${this.edges[k + 2]}`;
    return text;
  }
}

/** Per node type: `type@version`, the lanes after it, and the lanes after it and two empty parts. */
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
    const plainA = hashObjectPart(hashObjectPart(a, EMPTY_PART, LANE_A), EMPTY_PART, LANE_A);
    const plainB = hashObjectPart(hashObjectPart(b, EMPTY_PART, LANE_B), EMPTY_PART, LANE_B);
    head = { node, a, b, plainA, plainB };
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
