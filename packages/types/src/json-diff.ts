import { jsonEqual } from "./json-equal.ts";
import type { JsonChange } from "./builder-preview.ts";

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const hasIds = (list: unknown[]): list is { id: string }[] => list.every((v) => isObject(v) && typeof v.id === "string") && new Set(list.map((v) => (v as { id: string }).id)).size === list.length;

function join(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;
}

/**
 * The changes that turn `before` into `after`. Arrays of objects with unique `id`s (nodes, edges,
 * agents of a scene…) are compared by id, so moving one element is not reported as a change of all.
 */
export function jsonDiff(before: unknown, after: unknown, path = ""): JsonChange[] {
  if (jsonEqual(before, after)) return [];
  if (isObject(before) && isObject(after)) {
    const out: JsonChange[] = [];
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const at = join(path, key);
      if (!(key in after)) out.push({ op: "remove", path: at, before: before[key] });
      else if (!(key in before)) out.push({ op: "add", path: at, after: after[key] });
      else out.push(...jsonDiff(before[key], after[key], at));
    }
    return out;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    if (hasIds(before) && hasIds(after)) {
      const out: JsonChange[] = [];
      const afterById = new Map(after.map((v) => [v.id, v]));
      const beforeById = new Map(before.map((v) => [v.id, v]));
      for (const item of before) {
        const at = `${path}[id=${item.id}]`;
        const now = afterById.get(item.id);
        if (now === undefined) out.push({ op: "remove", path: at, before: item });
        else out.push(...jsonDiff(item, now, at));
      }
      for (const item of after) if (!beforeById.has(item.id)) out.push({ op: "add", path: `${path}[id=${item.id}]`, after: item });
      return out;
    }
    const out: JsonChange[] = [];
    const shared = Math.min(before.length, after.length);
    for (let i = 0; i < shared; i++) out.push(...jsonDiff(before[i], after[i], `${path}[${i}]`));
    for (let i = shared; i < before.length; i++) out.push({ op: "remove", path: `${path}[${i}]`, before: before[i] });
    for (let i = shared; i < after.length; i++) out.push({ op: "add", path: `${path}[${i}]`, after: after[i] });
    return out;
  }
  return [{ op: "replace", path: path || "(document)", before, after }];
}
