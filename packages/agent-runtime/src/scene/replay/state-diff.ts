import type { JsonObject, JsonValue, SceneStateDifference } from "@weft/types";
import { formatPath, type PathSegment } from "../state/json-path.ts";

/** At most this many differences are listed: past that, the first ones say enough. */
export const MAX_DIFFERENCES = 200;

/** Scene states to compare: the world and each agent's private state. */
export interface SceneStates {
  world: JsonObject;
  privateStates: Record<string, JsonObject>;
}

const isObject = (v: JsonValue | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The places where a replay's states differ from the recorded ones, world first, then each agent's
 * private state: the deepest path where the two still have the same shape, with both values there
 * (a side without a value there has none). Objects and arrays are compared entry by entry.
 */
export function sceneStateDifferences(recorded: SceneStates, replayed: SceneStates, max = MAX_DIFFERENCES): SceneStateDifference[] {
  const out: SceneStateDifference[] = [];
  const visit = (a: JsonValue | undefined, b: JsonValue | undefined, path: PathSegment[], instanceId: string | undefined): void => {
    if (out.length >= max) return;
    if (isObject(a) && isObject(b)) {
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
      for (const key of keys) visit(a[key], b[key], [...path, key], instanceId);
      return;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i++) visit(a[i], b[i], [...path, i], instanceId);
      return;
    }
    if (sameLeaf(a, b)) return;
    out.push({
      ...(instanceId !== undefined ? { instanceId } : {}),
      path: formatPath(path),
      ...(a !== undefined ? { recorded: a } : {}),
      ...(b !== undefined ? { replayed: b } : {}),
    });
  };
  visit(recorded.world, replayed.world, [], undefined);
  const agents = [...new Set([...Object.keys(recorded.privateStates), ...Object.keys(replayed.privateStates)])].sort();
  for (const id of agents) visit(recorded.privateStates[id], replayed.privateStates[id], [], id);
  return out;
}

/** Two values that are not both objects or both arrays: equal when the same scalar (or both missing). */
function sameLeaf(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (typeof a === "object" && a !== null) return false;
  if (typeof b === "object" && b !== null) return false;
  return a === b;
}
