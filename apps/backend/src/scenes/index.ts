import { openDatabase } from "../storage/database.ts";
import type { SceneAgentDeps } from "./scene-agents.ts";
import { sceneRuntimeApi } from "./scene-api.ts";
import { SceneService } from "./scene-service.ts";
import { SqliteSceneStateStore } from "./sqlite-scene-state-store.ts";

export { SceneService } from "./scene-service.ts";
export { SqliteSceneStateStore, type SceneSession } from "./sqlite-scene-state-store.ts";

export interface Scenes {
  service: SceneService;
  /** The Elysia plugin with the scene runtime routes. */
  api: ReturnType<typeof sceneRuntimeApi>;
  /** Loads the scenes that were running or paused at the last stop; a running one goes on. */
  recover(): Promise<string[]>;
  /** Saves every scene as it is and stops them (they continue on the next start), then closes the database. */
  shutdown(): Promise<void>;
}

/** The scene runtime of the server, on its own connection to the (already migrated) database file. */
export function createScenes(deps: SceneAgentDeps & { databaseFile: string; maxBodyBytes: number }): Scenes {
  const db = openDatabase(deps.databaseFile);
  const service = new SceneService({ ...deps, store: new SqliteSceneStateStore(db) });
  return {
    service,
    api: sceneRuntimeApi(service, deps.maxBodyBytes),
    recover: () => service.recover(),
    async shutdown() {
      await service.shutdown();
      db.close();
    },
  };
}
