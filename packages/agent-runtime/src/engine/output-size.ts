import { engineError, type NodeError } from "@weft/types";

/** A node's outputs past this many bytes (as JSON, about) fail the node with OUTPUT_TOO_LARGE unless the engine is given another cap. */
export const DEFAULT_MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

/** Nested deeper than this, a value is counted as over any cap: stored JSON that deep is a mistake or an attack. */
const MAX_DEPTH = 64;

/**
 * About how many bytes `value` takes as JSON, counting until it passes `limit` (then any number over it):
 * a small output costs a short walk, a huge one stops early. Strings count their UTF-8 bytes only when
 * their length times three could reach the limit, so short texts are never encoded to be measured.
 */
export function jsonSizeUpTo(value: unknown, limit: number): number {
  return measure(value, limit, 0, 0);
}

// Few branches and for-in (faster than Object.keys in JavaScriptCore): this runs once per completed node.
function measure(value: unknown, limit: number, size: number, depth: number): number {
  if (typeof value === "string") return size + 2 + (size + value.length * 3 + 2 > limit ? Buffer.byteLength(value) : value.length);
  // Numbers, booleans, null and what JSON leaves out: a few bytes each, counted as 8.
  if (typeof value !== "object" || value === null) return size + 8;
  if (depth >= MAX_DEPTH) return limit + 1;
  size += 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && size <= limit; i++) size = measure(value[i], limit, size + 1, depth + 1);
    return size;
  }
  for (const key in value) {
    if (size > limit) break;
    size = measure((value as Record<string, unknown>)[key], limit, size + key.length + 4, depth + 1);
  }
  return size;
}

/**
 * The failure of a node that returned (or streamed) more than `limit` bytes: the size, the cap and what to do.
 * The size is measured again to its end (lengths only, no encoding) so the message says how far over it is.
 */
export function outputTooLarge(what: "outputs" | "chunks", value: unknown, limit: number): NodeError {
  const bytes = jsonSizeUpTo(value, Number.MAX_SAFE_INTEGER);
  const told = what === "outputs" ? "outputs are" : "streamed chunks are";
  return engineError(
    "OUTPUT_TOO_LARGE",
    `the node's ${told} about ${formatBytes(bytes)}, over the cap of ${formatBytes(limit)} per node; return less (e.g. write a large result to a file and return its path), or raise the cap (the server's WEFT_MAX_OUTPUT_BYTES, docs/deploy.md)`,
    { bytes, limitBytes: limit },
  );
}

/** "8 MB", "100.5 MB", "70 KB": sizes in error messages. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KB`;
  return `${bytes} bytes`;
}
