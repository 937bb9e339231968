import { NodeFailure } from "@weft/types";
import { describeValue, isPlainObject } from "./describe-value.ts";

/** One step of a path: an object key or an array index. */
export type PathSegment = string | number;

/**
 * Parses a path in the syntax used across Weft (see WorldStateService): dots and brackets,
 * `a.b[2].c`, `items["key.with.dots"]`; the empty path is the whole value.
 * A malformed path is a NodeFailure `INVALID_PATH` naming the position.
 */
export function parsePath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  let i = 0;
  const fail = (what: string): never => {
    throw new NodeFailure("INVALID_PATH", `Invalid path ${JSON.stringify(path)} at position ${i}: ${what}. Write paths like a.b[2].c or items["key.with.dots"].`, {
      path,
      position: i,
    });
  };
  while (i < path.length) {
    const ch = path[i];
    if (ch === "[") {
      i++;
      if (path[i] === '"' || path[i] === "'") {
        const quote = path[i];
        let key = "";
        i++;
        while (i < path.length && path[i] !== quote) {
          if (path[i] === "\\" && i + 1 < path.length) i++;
          key += path[i];
          i++;
        }
        if (i >= path.length) fail(`unterminated quoted key (missing ${quote})`);
        i++;
        if (path[i] !== "]") fail('expected "]" after the quoted key');
        segments.push(key);
      } else {
        const start = i;
        while (i < path.length && path[i] >= "0" && path[i] <= "9") i++;
        if (i === start) fail("expected an index (digits) or a quoted key after [");
        if (path[i] !== "]") fail('expected "]" after the index');
        segments.push(Number(path.slice(start, i)));
      }
      i++;
      if (i < path.length && path[i] !== "." && path[i] !== "[") fail('expected "." or "[" after "]"');
      if (path[i] === ".") {
        i++;
        if (i >= path.length) fail("the path ends with a dot");
      }
    } else {
      const start = i;
      while (i < path.length && path[i] !== "." && path[i] !== "[") i++;
      if (i === start) fail("empty key (two dots in a row, or a leading dot)");
      segments.push(path.slice(start, i));
      if (path[i] === ".") {
        i++;
        if (i >= path.length) fail("the path ends with a dot");
      }
    }
  }
  return segments;
}

export function formatPath(segments: readonly PathSegment[]): string {
  let out = "";
  for (const s of segments) {
    if (typeof s === "number") out += `[${s}]`;
    else if (/^[^.[\]"']+$/.test(s)) out += out === "" ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

function child(container: unknown, segment: PathSegment): { found: boolean; value: unknown } {
  if (Array.isArray(container)) {
    const index = typeof segment === "number" ? segment : /^\d+$/.test(segment) ? Number(segment) : -1;
    return index >= 0 && index < container.length ? { found: true, value: container[index] } : { found: false, value: undefined };
  }
  if (isPlainObject(container)) {
    const key = String(segment);
    return Object.hasOwn(container, key) ? { found: true, value: container[key] } : { found: false, value: undefined };
  }
  return { found: false, value: undefined };
}

/** Reads the value at `segments`; `found` is false when any step is missing. */
export function getAtPath(root: unknown, segments: readonly PathSegment[]): { found: boolean; value: unknown } {
  let current = root;
  for (const segment of segments) {
    const next = child(current, segment);
    if (!next.found) return next;
    current = next.value;
  }
  return { found: true, value: current };
}

/**
 * Returns a copy of `root` with `value` at `segments`; only the containers along the path are copied.
 * Missing containers are created (an array when the next step is a number, else an object).
 * Stepping into a scalar is a NodeFailure `PATH_CONFLICT`.
 */
export function setAtPath(root: unknown, segments: readonly PathSegment[], value: unknown): unknown {
  const walk = (current: unknown, depth: number): unknown => {
    if (depth === segments.length) return value;
    const segment = segments[depth];
    const container = current === undefined || current === null ? (typeof segment === "number" ? [] : {}) : current;
    if (Array.isArray(container)) {
      const index = typeof segment === "number" ? segment : /^\d+$/.test(segment) ? Number(segment) : NaN;
      if (!Number.isInteger(index)) {
        throw conflict(segments, depth, container, `an array has no key ${JSON.stringify(segment)}; use an index like [0]`);
      }
      const copy = container.slice();
      while (copy.length < index) copy.push(null);
      copy[index] = walk(container[index], depth + 1);
      return copy;
    }
    if (isPlainObject(container)) {
      const key = String(segment);
      return { ...container, [key]: walk(container[key], depth + 1) };
    }
    throw conflict(segments, depth, container, "only objects and arrays can hold a value");
  };
  return walk(root, 0);
}

function conflict(segments: readonly PathSegment[], depth: number, found: unknown, why: string): NodeFailure {
  const at = formatPath(segments.slice(0, depth)) || "(the root)";
  return new NodeFailure("PATH_CONFLICT", `Cannot set ${JSON.stringify(formatPath(segments))}: ${at} is ${describeValue(found)}; ${why}.`, {
    path: formatPath(segments),
    at,
  });
}
