import type { EventBusService, NodeServices, PrivateStateService, WorldStateService } from "@weft/types";
import { SceneError } from "../errors.ts";
import type { EffectGate, SceneEffectKind } from "./effect-gate.ts";

/**
 * The scene services one agent's nodes get: world writes attributed to the agent, events published
 * as the agent, its own private state. Once the scene has stopped, every write and publish is
 * refused (SCENE_STOPPED), so a deliberation that outlives the scene cannot change it. With a
 * `gate` (a replay), each world write and publish waits for the agent's turn first. With `done`
 * (a deliberation resumed after a crash), the first `done.count` writes and publishes are already in
 * the restored state: they are answered without being applied again.
 */
export function agentServices(
  instanceId: string,
  world: WorldStateService,
  events: EventBusService,
  privateState: PrivateStateService,
  isStopped: () => boolean,
  gate?: EffectGate,
  done?: { count: number },
): Required<Pick<NodeServices, "world" | "events" | "privateState">> {
  const guard = <T>(write: () => Promise<T>, applied?: () => T): Promise<T> => {
    if (isStopped()) return Promise.reject(new SceneError("SCENE_STOPPED", `The scene has stopped; agent "${instanceId}" can no longer change it.`));
    if (done && done.count > 0 && applied) {
      done.count--;
      return Promise.resolve(applied());
    }
    return write();
  };
  const shared = <T>(kind: SceneEffectKind, write: () => Promise<T>, applied: () => T): Promise<T> => guard(() => (gate ? gate.turn(kind, instanceId).then(() => guard(write)) : write()), applied);
  return {
    world: {
      get: (path) => world.get(path),
      set: (path, value) =>
        shared(
          "world",
          () => world.set(path, value, instanceId),
          () => undefined,
        ),
      delete: (path) =>
        shared(
          "world",
          () => world.delete(path, instanceId),
          () => true,
        ),
      update: (path, fn) =>
        shared(
          "world",
          () => world.update(path, fn, instanceId),
          () => world.get(path),
        ),
      snapshot: () => world.snapshot(),
    },
    events: {
      publish: (topic, payload) =>
        shared(
          "event",
          () => events.publish(topic, payload, instanceId),
          () => undefined,
        ),
    },
    privateState: {
      get: (path) => privateState.get(path),
      set: (path, value) =>
        guard(
          () => privateState.set(path, value),
          () => undefined,
        ),
      delete: (path) =>
        guard(
          () => privateState.delete(path),
          () => true,
        ),
      update: (path, fn) =>
        guard(
          () => privateState.update(path, fn),
          () => privateState.get(path),
        ),
      snapshot: () => privateState.snapshot(),
    },
  };
}
