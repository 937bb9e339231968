import { messageOf } from "@weft/types";

/**
 * JSON.stringify that never throws (tool outputs are arbitrary values): bigints become strings,
 * functions and symbols are named, cycles are cut, `undefined` becomes `null`.
 */
export function safeJson(value: unknown, indent?: number): string {
  // Without a replacer first: JSON.stringify's fast path, and what a replacer changes (bigints) makes it throw.
  try {
    return JSON.stringify(value, undefined, indent) ?? "null";
  } catch {
    try {
      return JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v), indent) ?? "null";
    } catch {
      return tolerantJson(value, indent);
    }
  }
}

/** The slow path, only for values with cycles or exotic members (a reference seen twice is cut too). */
function tolerantJson(value: unknown, indent?: number): string {
  const seen = new WeakSet<object>();
  try {
    const replacer = (_key: string, v: unknown): unknown => {
      if (typeof v === "bigint") return v.toString();
      if (typeof v === "function" || typeof v === "symbol") return `[${typeof v}]`;
      if (typeof v === "object" && v !== null) {
        if (seen.has(v)) return "[circular]";
        seen.add(v);
      }
      return v;
    };
    return JSON.stringify(value, replacer, indent) ?? "null";
  } catch (err) {
    return JSON.stringify(`[unserialisable: ${messageOf(err)}]`);
  }
}
