import { WorldStateError, type JsonObject, type JsonValue } from "@weft/types";
import { formatPath, type PathSegment } from "./json-path.ts";
import { jsonKind } from "./json-value.ts";

type Container = JsonObject | JsonValue[];

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function child(container: Container, segment: PathSegment): JsonValue | undefined {
  if (Array.isArray(container)) return typeof segment === "number" ? container[segment] : undefined;
  return typeof segment === "string" && Object.hasOwn(container, segment) ? container[segment] : undefined;
}

/** The value at `segments` in `root`, or undefined when any step is missing. */
export function readAt(root: JsonObject, segments: readonly PathSegment[]): JsonValue | undefined {
  let cur: JsonValue | undefined = root;
  for (const s of segments) {
    if (typeof cur !== "object" || cur === null) return undefined;
    cur = child(cur, s);
    if (cur === undefined) return undefined;
  }
  return cur;
}

function conflict(segments: readonly PathSegment[], depth: number, value: JsonValue | undefined): WorldStateError {
  const full = formatPath(segments);
  const parent = formatPath(segments.slice(0, depth)) || "the root";
  const seg = segments[depth];
  const wanted = typeof seg === "number" ? `an array (for index [${seg}])` : `an object (for key ${JSON.stringify(seg)})`;
  const hint =
    Array.isArray(value) && typeof seg === "string"
      ? ` Use an index like ${formatPath(segments.slice(0, depth))}[0].`
      : isObject(value) && typeof seg === "number"
        ? ` To use "${seg}" as an object key write ${formatPath(segments.slice(0, depth))}["${seg}"].`
        : ` Set ${parent} to ${typeof seg === "number" ? "[]" : "{}"} first, or choose another path.`;
  return new WorldStateError("PATH_CONFLICT", full, `Cannot set ${JSON.stringify(full)}: ${parent} holds ${jsonKind(value)}, not ${wanted}.${hint}`);
}

/**
 * Writes `value` at `segments`, creating missing objects and arrays on the way (an array when the
 * next step is an index). Mutates `root` only once the whole write is known to fit, so a refused
 * write leaves nothing behind. An index may be at most the array's length (appending); holes are
 * refused. Returns the previous value. `segments` must not be empty (the caller replaces the root).
 */
export function writeAt(root: JsonObject, segments: readonly PathSegment[], value: JsonValue): JsonValue | undefined {
  let cur: Container = root;
  for (let d = 0; d < segments.length; d++) {
    const seg = segments[d];
    checkStep(cur, segments, d);
    const existing = child(cur, seg);
    if (d === segments.length - 1) {
      put(cur, seg, value);
      return existing;
    }
    if (existing === undefined) {
      put(cur, seg, build(segments, d + 1, value));
      return undefined;
    }
    if (typeof existing !== "object" || existing === null) throw conflict(segments, d + 1, existing);
    cur = existing;
  }
  return undefined;
}

/** The nested containers that hold `value` at `segments[from..]`, built before anything is attached. */
function build(segments: readonly PathSegment[], from: number, value: JsonValue): JsonValue {
  let out = value;
  for (let d = segments.length - 1; d >= from; d--) {
    const seg = segments[d];
    if (typeof seg === "number") {
      if (seg !== 0) throw pastEnd(segments, d, 0);
      out = [out];
    } else {
      out = { [seg]: out };
    }
  }
  return out;
}

/** Removes the key or array element at `segments` (array elements after it move up). Returns what was removed. */
export function removeAt(root: JsonObject, segments: readonly PathSegment[]): JsonValue | undefined {
  if (segments.length === 0) throw new WorldStateError("PATH_CONFLICT", "", "Cannot delete the whole state; set its keys instead.");
  const parent = readAt(root, segments.slice(0, -1));
  if (typeof parent !== "object" || parent === null) return undefined;
  const last = segments[segments.length - 1];
  const before = child(parent, last);
  if (before === undefined) return undefined;
  if (Array.isArray(parent)) parent.splice(last as number, 1);
  else delete parent[last as string];
  return before;
}

function checkStep(container: Container, segments: readonly PathSegment[], depth: number): void {
  const seg = segments[depth];
  if (Array.isArray(container)) {
    if (typeof seg !== "number") throw conflict(segments, depth, container);
    if (seg > container.length) throw pastEnd(segments, depth, container.length);
  } else if (typeof seg !== "string") {
    throw conflict(segments, depth, container);
  }
}

function pastEnd(segments: readonly PathSegment[], depth: number, length: number): WorldStateError {
  const full = formatPath(segments);
  const at = formatPath(segments.slice(0, depth));
  return new WorldStateError(
    "PATH_CONFLICT",
    full,
    `Cannot set ${JSON.stringify(full)}: index ${segments[depth]} is past the end of ${at} (length ${length}); use an index up to ${length} (${length} appends), or append.`,
  );
}

function put(container: Container, seg: PathSegment, value: JsonValue): void {
  if (Array.isArray(container)) container[seg as number] = value;
  else container[seg as string] = value;
}
