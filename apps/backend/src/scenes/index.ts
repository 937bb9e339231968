import type { SceneAgentDeps } from "./scene-agents.ts";
import { sceneRuntimeApi } from "./scene-api.ts";
import { SceneService } from "./scene-service.ts";
import { createSceneStore } from "./create-scene-store.ts";

export { SceneService } from "./scene-service.ts";
export { SqliteSceneStateStore } from "./sqlite-scene-state-store.ts";
export { PostgresSceneStateStore } from "./postgres-scene-state-store.ts";
export { createSceneStore } from "./create-scene-store.ts";
export type { SceneSession, SceneStore } from "./scene-store.ts";

export interface Scenes {
  service: SceneService;
  /** The Elysia plugin with the scene runtime routes. */
  api: ReturnType<typeof sceneRuntimeApi>;
  /** Loads the scenes that were running or paused at the last stop; a running one goes on. */
  recover(): Promise<string[]>;
  /** Saves every scene as it is and stops them (they continue on the next start); the storage is closed by its owner. */
  shutdown(): Promise<void>;
}

/** The scene runtime of the server; its tables live on the storage's connection and engine (like the Builder's). */
export function createScenes(deps: SceneAgentDeps & { maxBodyBytes: number }): Scenes {
  const service = new SceneService({ ...deps, store: createSceneStore(deps.storage) });
  return {
    service,
    api: sceneRuntimeApi(service, deps.maxBodyBytes, deps.log),
    recover: () => service.recover(),
    shutdown: () => service.shutdown(),
  };
}
