import type { EventBusService, NodeServices, PrivateStateService, WorldStateService } from "@weft/types";
import { SceneError } from "../errors.ts";
import type { EffectGate, SceneEffectKind } from "../replay/effect-order.ts";

/**
 * The scene services one agent's nodes get: world writes attributed to the agent, events published
 * as the agent, its own private state. Once the scene has stopped, every write and publish is
 * refused (SCENE_STOPPED), so a deliberation that outlives the scene cannot change it. With a
 * `gate` (a replay), each world write and publish waits for the agent's turn first.
 */
export function agentServices(
  instanceId: string,
  world: WorldStateService,
  events: EventBusService,
  privateState: PrivateStateService,
  isStopped: () => boolean,
  gate?: EffectGate,
): Required<Pick<NodeServices, "world" | "events" | "privateState">> {
  const guard = <T>(write: () => Promise<T>): Promise<T> =>
    isStopped() ? Promise.reject(new SceneError("SCENE_STOPPED", `The scene has stopped; agent "${instanceId}" can no longer change it.`)) : write();
  const shared = <T>(kind: SceneEffectKind, write: () => Promise<T>): Promise<T> => guard(() => (gate ? gate.turn(kind, instanceId).then(() => guard(write)) : write()));
  return {
    world: {
      get: (path) => world.get(path),
      set: (path, value) => shared("world", () => world.set(path, value, instanceId)),
      delete: (path) => shared("world", () => world.delete(path, instanceId)),
      update: (path, fn) => shared("world", () => world.update(path, fn, instanceId)),
      snapshot: () => world.snapshot(),
    },
    events: { publish: (topic, payload) => shared("event", () => events.publish(topic, payload, instanceId)) },
    privateState: {
      get: (path) => privateState.get(path),
      set: (path, value) => guard(() => privateState.set(path, value)),
      delete: (path) => guard(() => privateState.delete(path)),
      update: (path, fn) => guard(() => privateState.update(path, fn)),
      snapshot: () => privateState.snapshot(),
    },
  };
}
