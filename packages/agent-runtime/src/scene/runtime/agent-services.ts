import type { EventBusService, NodeServices, PrivateStateService, WorldStateService } from "@weft/types";
import { SceneError } from "../errors.ts";

/**
 * The scene services one agent's nodes get: world writes attributed to the agent, events published
 * as the agent, its own private state. Once the scene has stopped, every write and publish is
 * refused (SCENE_STOPPED), so a deliberation that outlives the scene cannot change it.
 */
export function agentServices(
  instanceId: string,
  world: WorldStateService,
  events: EventBusService,
  privateState: PrivateStateService,
  isStopped: () => boolean,
): Required<Pick<NodeServices, "world" | "events" | "privateState">> {
  const guard = <T>(write: () => Promise<T>): Promise<T> =>
    isStopped() ? Promise.reject(new SceneError("SCENE_STOPPED", `The scene has stopped; agent "${instanceId}" can no longer change it.`)) : write();
  return {
    world: {
      get: (path) => world.get(path),
      set: (path, value) => guard(() => world.set(path, value, instanceId)),
      delete: (path) => guard(() => world.delete(path, instanceId)),
      update: (path, fn) => guard(() => world.update(path, fn, instanceId)),
      snapshot: () => world.snapshot(),
    },
    events: { publish: (topic, payload) => guard(() => events.publish(topic, payload, instanceId)) },
    privateState: {
      get: (path) => privateState.get(path),
      set: (path, value) => guard(() => privateState.set(path, value)),
      delete: (path) => guard(() => privateState.delete(path)),
      update: (path, fn) => guard(() => privateState.update(path, fn)),
      snapshot: () => privateState.snapshot(),
    },
  };
}
