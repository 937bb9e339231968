import { WorldStateError } from "@weft/types";

/** One step of a path: an object key (string) or an array index (number). */
export type PathSegment = string | number;

const HINT = 'Write paths like a.b[2].c; put keys with dots, brackets or quotes in quotes: a["x.y"].';
/** Keys that would reach an object's prototype instead of its own data. */
const FORBIDDEN_KEYS = new Set(["__proto__"]);
/** Keys written without quotes: anything but dots, brackets and quotes (as in core:get-path). */
const BARE_KEY = /^[^.[\]"']+$/;
/** Keys formatted without quotes; whitespace is quoted too, so it stays visible. */
const PLAIN_KEY = /^[^.[\]"'\s]+$/;

function invalid(path: string, at: number, what: string): WorldStateError {
  return new WorldStateError("INVALID_PATH", path, `Invalid path ${JSON.stringify(path)} at position ${at}: ${what}. ${HINT}`);
}

/**
 * Parses `a.b[2].c`, `a["key.with.dots"]`, `list[0]`. The empty path is the root (no segments).
 * Throws a WorldStateError (INVALID_PATH) naming the position and what is wrong.
 */
export function parsePath(path: string): PathSegment[] {
  if (typeof path !== "string") throw new WorldStateError("INVALID_PATH", String(path), `A path must be a string, got ${typeof path}. ${HINT}`);
  const segments: PathSegment[] = [];
  let i = 0;
  const n = path.length;
  while (i < n) {
    const ch = path[i];
    if (ch === "[") {
      i = readBracket(path, i, segments);
    } else {
      if (segments.length > 0) {
        if (ch !== ".") throw invalid(path, i, `expected "." or "[" after ${describe(segments[segments.length - 1])}, found ${JSON.stringify(ch)}`);
        i++;
      }
      const start = i;
      while (i < n && path[i] !== "." && path[i] !== "[") i++;
      const key = path.slice(start, i);
      if (key.length === 0) throw invalid(path, start, i < n ? `empty key before ${JSON.stringify(path[i])}` : "empty key at the end (a trailing dot)");
      if (!BARE_KEY.test(key)) throw invalid(path, start, `key ${JSON.stringify(key)} contains a quote or "]"; quote it: ["${key.replace(/["\\]/g, "\\$&")}"]`);
      pushKey(path, start, key, segments);
    }
  }
  return segments;
}

function readBracket(path: string, open: number, segments: PathSegment[]): number {
  let i = open + 1;
  const quote = path[i];
  if (quote === '"' || quote === "'") {
    let key = "";
    i++;
    for (;;) {
      if (i >= path.length) throw invalid(path, open, `unterminated quoted key (missing closing ${quote})`);
      const c = path[i];
      if (c === "\\") {
        const next = path[i + 1];
        if (next === undefined) throw invalid(path, i, "a backslash at the end of the path");
        key += next;
        i += 2;
        continue;
      }
      if (c === quote) break;
      key += c;
      i++;
    }
    i++;
    if (path[i] !== "]") throw invalid(path, i, `expected "]" after the quoted key ${JSON.stringify(key)}`);
    pushKey(path, open, key, segments);
    return i + 1;
  }
  const close = path.indexOf("]", i);
  if (close < 0) throw invalid(path, open, 'unclosed "["');
  const inner = path.slice(i, close);
  if (!/^(0|[1-9][0-9]*)$/.test(inner)) {
    const what = inner.length === 0 ? "empty brackets []" : `${JSON.stringify(inner)} is not an array index (a whole number ≥ 0)`;
    throw invalid(path, i, `${what}; for an object key write .${inner || "key"} or ["${inner || "key"}"]`);
  }
  const index = Number(inner);
  if (!Number.isSafeInteger(index)) throw invalid(path, i, `index ${inner} is too large`);
  segments.push(index);
  return close + 1;
}

function pushKey(path: string, at: number, key: string, segments: PathSegment[]): void {
  if (FORBIDDEN_KEYS.has(key)) throw invalid(path, at, `the key "${key}" is not allowed`);
  segments.push(key);
}

function describe(segment: PathSegment | undefined): string {
  return typeof segment === "number" ? `[${segment}]` : JSON.stringify(segment);
}

/** The canonical text of a path: `a.b[2]["x.y"]`. Parsing it gives the same segments back. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = "";
  for (const s of segments) {
    if (typeof s === "number") out += `[${s}]`;
    else if (PLAIN_KEY.test(s)) out += out.length === 0 ? s : `.${s}`;
    else out += `["${s.replace(/["\\]/g, "\\$&")}"]`;
  }
  return out;
}
