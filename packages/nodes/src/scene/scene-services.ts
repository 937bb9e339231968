import { NodeFailure, type EventBusService, type NodeContext, type PrivateStateService, type WorldStateService } from "@weft/types";

interface SceneServices {
  world: WorldStateService;
  events: EventBusService;
  privateState: PrivateStateService;
}

const LABEL: Record<keyof SceneServices, string> = {
  world: "shared world state",
  events: "event bus",
  privateState: "agent's private state",
};

/**
 * The scene service a node needs. Outside a scene it is absent: that is a NodeFailure
 * `MISSING_SERVICE` naming the service, so the user (or agent) knows where the node can run.
 */
export function sceneService<K extends keyof SceneServices>(ctx: NodeContext, key: K, nodeType: string): SceneServices[K] {
  const service = ctx.services[key] as SceneServices[K] | undefined;
  if (service) return service;
  throw new NodeFailure(
    "MISSING_SERVICE",
    `${nodeType} needs the scene's ${LABEL[key]} (ctx.services.${key}), which exists only when the node runs inside a scene, as an agent's action. Run it from an agent in a scene.`,
    { service: key },
  );
}

/**
 * Runs a scene call, turning its refusals (errors that carry a `code`, such as INVALID_PATH,
 * NOT_JSON, PATH_CONFLICT, INVALID_TOPIC) into NodeFailures with the same code and message, so an
 * agent gets the precise reason as its Observation.
 */
export async function sceneCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof NodeFailure) throw err;
    const { code, path } = (err ?? {}) as { code?: unknown; path?: unknown };
    if (err instanceof Error && typeof code === "string") {
      throw new NodeFailure(code, err.message, typeof path === "string" ? { path } : undefined);
    }
    throw err;
  }
}

/**
 * A `json` input as the value it stands for. An agent's <ACTION> gives every parameter as text, so
 * text that is JSON is taken as JSON: `6` is the number 6, `true` a boolean, `null` null, `"6"` the
 * text 6. Text that is not JSON (`sunny`) is kept as text, as a value from an edge already is.
 */
export function jsonInput(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
