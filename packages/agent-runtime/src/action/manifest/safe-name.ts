/**
 * LLM-safe tool names: OpenAI function names (and XML tag names) cannot hold `:`, `.` or `/`,
 * so every node type or skill id gets a name matching SAFE_TOOL_NAME, mapped back to the id.
 */
export const SAFE_TOOL_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
export const MAX_TOOL_NAME_LENGTH = 64;

export type ToolKind = "tool" | "skill";

/** FNV-1a (32 bit): a small, stable hash so a suffix never depends on manifest order. */
export function stableHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0").slice(0, 6);
}

/** `id` + `_<hash>`, the whole within the length limit. */
export function withSuffix(base: string, id: string, salt = ""): string {
  const suffix = `_${stableHash(salt + id)}`;
  return base.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length) + suffix;
}

/**
 * The preferred name of an id, before collisions are resolved:
 * `core:text-template` -> `core_text_template`, skill `greet player` -> `skill_greet_player`.
 */
export function baseToolName(id: string, kind: ToolKind): string {
  const cleaned = id.replace(/[^A-Za-z0-9_]+/g, "_").replace(/^_+|_+$/g, "");
  const prefix = kind === "skill" ? "skill" : "tool";
  // Nothing of the id survived (e.g. a name in another script): the hash keeps it distinct.
  if (!cleaned) return withSuffix(prefix, id);
  const base = kind === "skill" || !/^[A-Za-z]/.test(cleaned) ? `${prefix}_${cleaned}` : cleaned;
  return base.length <= MAX_TOOL_NAME_LENGTH ? base : withSuffix(base, id);
}

/**
 * Unique names for a list of (kind, id) pairs, case-insensitively (so a case-insensitive match of a
 * name is never ambiguous). Within a group of colliding ids, the smallest id keeps the base name and
 * the others get a hash suffix of their id: stable whatever the order of the list.
 */
export function assignToolNames(items: ReadonlyArray<{ id: string; kind: ToolKind; name?: string }>): string[] {
  const bases = items.map((it) => (it.name && SAFE_TOOL_NAME.test(it.name) ? it.name : baseToolName(it.id, it.kind)));
  const groups = new Map<string, number[]>();
  bases.forEach((b, i) => {
    const key = b.toLowerCase();
    const g = groups.get(key);
    if (g) g.push(i);
    else groups.set(key, [i]);
  });
  const names = [...bases];
  const taken = new Set<string>();
  for (const g of groups.values()) if (g.length === 1) taken.add(bases[g[0]!]!.toLowerCase());
  for (const g of groups.values()) {
    if (g.length === 1) continue;
    const order = [...g].sort((a, b) => cmp(`${items[a]!.kind}:${items[a]!.id}`, `${items[b]!.kind}:${items[b]!.id}`));
    order.forEach((idx, rank) => {
      const base = bases[idx]!;
      let name = rank === 0 ? base : withSuffix(base, items[idx]!.id, items[idx]!.kind);
      // A hash clash is practically impossible; salting again keeps uniqueness guaranteed anyway.
      for (let salt = 1; taken.has(name.toLowerCase()); salt++) name = withSuffix(base, items[idx]!.id, `${items[idx]!.kind}${salt}`);
      taken.add(name.toLowerCase());
      names[idx] = name;
    });
  }
  return names;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
