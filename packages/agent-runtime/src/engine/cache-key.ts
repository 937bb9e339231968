/**
 * Cache keys (ComfyUI-style): a node's key covers its type, spec version, config and literal inputs
 * (the "static" part, serialised once per run) and, for every input edge, the key of the upstream
 * node and the handle it reads. Upstream keys stand for upstream values, so big values are never
 * hashed again and again down a chain.
 */

function sortedKeys(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source).sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = source[key];
  return out;
}

export function isEmpty(value: Record<string, unknown>): boolean {
  for (const _ in value) return false;
  return true;
}

/** JSON with object keys in sorted order, so equal values give equal text. */
export function stableJson(value: unknown): string {
  if (value !== null && typeof value === "object" && !Array.isArray(value) && isEmpty(value as Record<string, unknown>)) return "{}";
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
