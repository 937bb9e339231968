/**
 * Cache keys (ComfyUI-style): a node's key covers its type, spec version, config and literal inputs
 * (the "static" part, serialised once per run) and, for every input edge, the key of the upstream
 * node and the handle it reads. Upstream keys stand for upstream values, so big values are never
 * hashed again and again down a chain.
 */

function sortedKeys(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const source = value;
  const keys = Object.keys(source).sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = source[key];
  return out;
}

export function isEmpty(value: Record<string, unknown>): boolean {
  for (const _ in value) return false;
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The common case of config and literal inputs, an object of scalars, without JSON.stringify's replacer. */
function flatJson(value: Record<string, unknown>): string | undefined {
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort();
  let out = "{";
  for (const key of keys) {
    const v = value[key];
    let text: string;
    switch (typeof v) {
      case "undefined":
        continue;
      case "string":
        text = JSON.stringify(v);
        break;
      case "number":
        text = Number.isFinite(v) ? String(v) : "null";
        break;
      case "boolean":
        text = v ? "true" : "false";
        break;
      default:
        if (v !== null) return undefined;
        text = "null";
    }
    out += (out.length > 1 ? "," : "") + JSON.stringify(key) + ":" + text;
  }
  return out + "}";
}

/** JSON with object keys in sorted order, so equal values give equal text. */
function stableJson(value: unknown): string {
  if (isPlainObject(value)) {
    if (isEmpty(value)) return "{}";
    const flat = flatJson(value);
    if (flat !== undefined) return flat;
  }
  return JSON.stringify(value, (_key, v: unknown) => sortedKeys(v)) ?? "undefined";
}

/** The part of a node's key that does not depend on upstream nodes. */
export function staticKeyPart(type: string, version: number, config: Record<string, unknown>, literals: Record<string, unknown>): string {
  return `${type}@${version}|${stableJson(config)}|${stableJson(literals)}`;
}

/** A fixed-size key for arbitrarily long key material. */
export function hashKey(material: string): string {
  return Bun.SHA256.hash(material, "base64");
}
