import type { NodeDefinition } from "@weft/types";

/**
 * Cache keys (ComfyUI-style): a node's key covers its type, spec version, config and literal inputs
 * (the "static" part, serialised once per run) and, for every input edge, the port, the handle it
 * reads and the upstream node's ref: the ref of the cache entry its outputs came from or went to.
 * Refs stand for upstream keys and so for upstream values: big values are never hashed, and keys
 * stay short however long the chain above.
 */

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

const EMPTY_JSON = "{}";

/**
 * JSON of a config or literal-inputs object with keys in sorted order, so equal values give equal
 * text. One pass over the keys: the common case, scalars with keys in order, is JSON.stringify's
 * own output; anything else goes the slower, sorting way.
 */
function objectJson(value: Record<string, unknown>): string {
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
  if (simple && isPlainObject(value)) return JSON.stringify(value);
  return JSON.stringify(value, (_key, v: unknown) => sortedKeys(v)) ?? "undefined";
}

/** The static parts of nodes with no config and no literal inputs, one per node type. */
const plainStaticKeys = new WeakMap<NodeDefinition, string>();

/** The part of a node's key that does not depend on upstream nodes (made when the key is: a run needs it once). */
export function staticKeyPart(def: NodeDefinition, config: Record<string, unknown>, literals: Record<string, unknown>): string {
  const configJson = objectJson(config);
  const literalsJson = objectJson(literals);
  if (configJson !== EMPTY_JSON || literalsJson !== EMPTY_JSON) return `${def.spec.type}@${def.spec.version}|${configJson}|${literalsJson}`;
  let key = plainStaticKeys.get(def);
  if (key === undefined) plainStaticKeys.set(def, (key = `${def.spec.type}@${def.spec.version}|{}|{}`));
  return key;
}

/** Key material up to this length is the key itself; longer material is hashed. */
const MAX_PLAIN_KEY = 128;

/**
 * One input edge's part of a key. Port and handle ids are identifiers (or `$error`) and refs are
 * integers, so every key reads one way only.
 */
export function edgeKeyPart(port: string, handle: string, ref: number): string {
  return "|" + port + "<" + handle + ":" + ref;
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

/**
 * The edges' part of the key of a node with a wide fan-in: the labels of edges `from`..`to`, runs
 * of equal ones counted (`|xs<y*500`), then the SHA-256 of their refs, in order, as bytes. Writing
 * thousands of refs out as text and hashing the text costs several times more.
 */
export function wideEdgesKeyPart(ports: readonly string[], handles: readonly string[], from: number, to: number, refs: Float64Array): string {
  let labels = "";
  let run = 0;
  for (let k = from; k < to; k++) {
    if (run > 0 && ports[k] === ports[k - 1] && handles[k] === handles[k - 1]) {
      run++;
      continue;
    }
    if (run > 0) labels += "*" + run;
    labels += "|" + ports[k] + "<" + handles[k];
    run = 1;
  }
  return labels + "*" + run + "#" + Bun.SHA256.hash(refs, "base64");
}

/**
 * The key for some key material: short material as it is (hashing it would cost more than the map
 * lookups it saves), long material as its SHA-256. A hash (base64) never contains `|`, which all
 * material does, so the two kinds cannot collide.
 */
export function finishKey(material: string): string {
  return material.length <= MAX_PLAIN_KEY ? material : Bun.SHA256.hash(material, "base64");
}
