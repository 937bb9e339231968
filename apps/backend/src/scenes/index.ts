import type { SceneAgentDeps } from "./scene-agents.ts";
import { sceneRuntimeApi } from "./scene-api.ts";
import { forkScene } from "./scene-fork.ts";
import { SceneService } from "./scene-service.ts";
import type { SceneHost } from "./scene-host.ts";
import { SceneStore } from "./scene-store.ts";

export { SceneService } from "./scene-service.ts";
export type { SceneSession, SceneStore } from "./scene-store.ts";
export type { SceneHost } from "./scene-host.ts";

export interface Scenes {
  /** Where the routes' requests go: this process's `SceneService`, or what the queue mode puts in front of it. */
  service: SceneHost;
  /** The Elysia plugin with the scene runtime routes. */
  api: ReturnType<typeof sceneRuntimeApi>;
  /** Loads the scenes that were running or paused at the last stop; a running one goes on. */
  recover(): Promise<string[]>;
  /** Saves every scene as it is and stops them (they continue on the next start); the storage is closed by its owner. */
  shutdown(): Promise<void>;
}

/** A scene service on the storage's connection and engine: the API's, or a `weft worker`'s (which hosts the scenes in the queue mode). */
export function createSceneService(deps: SceneAgentDeps, store: SceneStore = new SceneStore(deps.storage)): SceneService {
  return new SceneService({ ...deps, store });
}

/**
 * The scene runtime of the server; its tables live on the storage's connection and engine (like the Builder's).
 * `hostWith`: in the queue mode, the host that has workers run the scenes, built around this process's
 * service (which then runs none, and answers timelines, replays and saved states from storage).
 */
export function createScenes(deps: SceneAgentDeps & { maxBodyBytes: number }, hostWith?: (local: SceneService, store: SceneStore) => SceneHost): Scenes {
  const store = new SceneStore(deps.storage);
  const local = createSceneService(deps, store);
  const service = hostWith ? hostWith(local, store) : local;
  return {
    service,
    api: sceneRuntimeApi(service, deps.maxBodyBytes, deps.log, (sceneId, body, by) => forkScene({ storage: deps.storage, store, host: service }, sceneId, body, by)),
    recover: () => service.recover(),
    shutdown: () => service.shutdown(),
  };
}
