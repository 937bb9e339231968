import { hashNumber, hashText, hashWord } from "./key-hash.ts";

type Scalar = string | number | boolean | null;

/**
 * A config or literal-inputs object as a part of a cache key, equal for equal objects whatever
 * their key order: `EMPTY_PART` when it has nothing, its entries as sorted `[key, value, …]` when
 * every value is a scalar (the common case: no text is built), else its JSON with sorted keys, a long
 * nested value standing as its digest (`piece`), and the SHA-256 of the whole when long, so keys stay small.
 */
export type ObjectPart = string | readonly Scalar[];

export const EMPTY_PART = "{}";
/** JSON up to this length is kept as it is; longer JSON as its SHA-256 (base64, 44 chars). */
const MAX_PLAIN_JSON = 128;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function sortedKeys(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = value[key];
  return out;
}

const sortingReplacer = (_key: string, v: unknown) => sortedKeys(v);

/**
 * A nested value as it stands in a key's text: its sorted-key JSON, or when that is long `#` and the
 * SHA-256 of it; remembered by object. Values passed between nodes are never changed (the output
 * cache already hands the same objects out again), and an agent's deliberation gets the same message
 * objects at every step in a new list: only the new messages are serialized and hashed, and the list's
 * text is its items' digests, not their whole text again.
 */
const pieces = new WeakMap<object, string>();

function piece(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  let text = pieces.get(value);
  if (text === undefined) {
    const json = Array.isArray(value) ? `[${value.map(piece).join(",")}]` : (JSON.stringify(value, sortingReplacer) ?? "null");
    text = json.length <= MAX_PLAIN_JSON ? json : `#${Bun.SHA256.hash(json, "base64")}`;
    pieces.set(value, text);
  }
  return text;
}

function sortedJson(value: Record<string, unknown>): string {
  let json: string;
  if (isPlainObject(value)) {
    const fields: string[] = [];
    for (const key of Object.keys(value).sort()) {
      const v = value[key];
      if (v !== undefined && typeof v !== "function" && typeof v !== "symbol") fields.push(`${JSON.stringify(key)}:${piece(v)}`);
    }
    json = `{${fields.join(",")}}`;
  } else json = JSON.stringify(value, sortingReplacer) ?? "undefined";
  return json.length <= MAX_PLAIN_JSON ? json : Bun.SHA256.hash(json, "base64");
}

/** True when `value` has no enumerable key (own or inherited, as `objectPart` walks it): its part is `EMPTY_PART`. */
export function hasNoKeys(value: object): boolean {
  for (const _ in value) return false;
  return true;
}

export function objectPart(value: Record<string, unknown>): ObjectPart {
  let entries: Scalar[] | undefined;
  let sorted = true;
  let previous = "";
  for (const key in value) {
    const v = value[key];
    // Undefined values are no values (as in JSON).
    if (v === undefined) continue;
    if (v !== null && typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") return sortedJson(value);
    if (key < previous) sorted = false;
    previous = key;
    (entries ??= []).push(key, v);
  }
  if (entries === undefined) return EMPTY_PART;
  if (!isPlainObject(value)) return sortedJson(value);
  if (sorted) return entries;
  return Object.keys(value)
    .filter((key) => value[key] !== undefined)
    .sort()
    .flatMap((key) => [key, value[key] as Scalar]);
}

/** Tags that keep `1`, `"1"` and `true` apart, and entries apart from JSON text. */
const TEXT = 1;
const NUMBER = 2;
const TRUE = 3;
const FALSE = 4;
const NULL = 5;
const ENTRIES = 6;

export function hashObjectPart(h: number, part: ObjectPart, prime: number): number {
  if (typeof part === "string") return hashText(hashWord(h, TEXT, prime), part, prime);
  h = hashWord(h, ENTRIES, prime);
  for (let k = 0; k < part.length; k += 2) {
    h = hashText(h, part[k] as string, prime);
    const v = part[k + 1];
    if (typeof v === "string") h = hashText(hashWord(h, TEXT, prime), v, prime);
    else if (typeof v === "number") h = hashNumber(hashWord(h, NUMBER, prime), v, prime);
    else h = hashWord(h, v === true ? TRUE : v === false ? FALSE : NULL, prime);
  }
  return h;
}

export function objectPartsEqual(a: ObjectPart, b: ObjectPart): boolean {
  if (typeof a === "string" || typeof b === "string") return a === b;
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** JSON-like text of a part (for reading keys). */
export function objectPartText(part: ObjectPart): string {
  if (typeof part === "string") return part;
  const out: Record<string, Scalar> = {};
  for (let k = 0; k < part.length; k += 2) out[part[k] as string] = part[k + 1];
  return JSON.stringify(out);
}
