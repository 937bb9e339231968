import { WorldStateError, type JsonObject, type JsonValue } from "@weft/types";
import { formatPath, parsePath } from "./json-path.ts";
import { readAt, removeAt, writeAt } from "./json-document.ts";
import { cloneJson, toJsonValue } from "./json-value.ts";
import { SerialLock } from "./serial-lock.ts";

/** A committed change, as JsonState reports it to its owner. */
export interface JsonStateChange {
  op: "set" | "delete";
  /** Canonical path. */
  path: string;
  before?: JsonValue;
  after?: JsonValue;
  agentId?: string;
}

/**
 * A JSON document addressed by paths, with every write serialised through one lock so that
 * concurrent writers never lose an update. Reads see the last committed state and return copies.
 * The shared core of WorldState and PrivateState.
 */
export class JsonState {
  private doc: JsonObject;
  private readonly lock = new SerialLock();

  constructor(
    initial: unknown,
    private readonly onCommit: (change: JsonStateChange) => void,
  ) {
    this.doc = asRootObject(initial ?? {}, "");
  }

  get(path: string): JsonValue | undefined {
    return cloneJson(readAt(this.doc, parsePath(path)));
  }

  set(path: string, value: unknown, agentId?: string): Promise<void> {
    try {
      const segments = parsePath(path);
      const json = toJsonValue(value, path);
      return this.lock.run(() => {
        this.write(segments, json, agentId);
      });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  delete(path: string, agentId?: string): Promise<boolean> {
    try {
      const segments = parsePath(path);
      return this.lock.run(() => {
        const before = removeAt(this.doc, segments);
        if (before === undefined) return false;
        this.onCommit({ op: "delete", path: formatPath(segments), before, ...(agentId ? { agentId } : {}) });
        return true;
      });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Runs `fn` on a copy of the current value and stores its result, with no other write in
   * between. `fn` may be async; it must not write to this same state (that would wait on itself).
   */
  update(path: string, fn: (current: unknown) => unknown, agentId?: string): Promise<JsonValue> {
    try {
      const segments = parsePath(path);
      return this.lock.run(async () => {
        const next = toJsonValue(await fn(cloneJson(readAt(this.doc, segments))), path);
        this.write(segments, next, agentId);
        return cloneJson(next);
      });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  snapshot(): JsonObject {
    return cloneJson(this.doc);
  }

  /** Replaces the whole document without reporting a change (used when a saved scene is restored). */
  load(doc: JsonObject): void {
    this.doc = asRootObject(doc, "");
  }

  private write(segments: ReturnType<typeof parsePath>, value: JsonValue, agentId: string | undefined): void {
    let before: JsonValue | undefined;
    if (segments.length === 0) {
      before = this.doc;
      this.doc = asRootObject(value, "");
    } else {
      before = writeAt(this.doc, segments, value);
    }
    this.onCommit({ op: "set", path: formatPath(segments), ...(before !== undefined ? { before } : {}), after: cloneJson(value), ...(agentId ? { agentId } : {}) });
  }
}

function asRootObject(value: unknown, path: string): JsonObject {
  const json = toJsonValue(value, path);
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new WorldStateError(
      "PATH_CONFLICT",
      path,
      `The whole state must be an object (got ${Array.isArray(json) ? "an array" : json === null ? "null" : typeof json}); set a key inside it instead, e.g. "value".`,
    );
  }
  return json;
}
