import { innerIdIssues, namedDocumentIssues, SceneSchema, type Scene } from "@weft/types";
import type { ApiDeps } from "./deps.ts";
import { documentRoutes } from "./document-routes.ts";

/** Scene CRUD; every agent instance must name an existing agent profile. A deleted scene's runtime state goes with it. */
export function scenesApi(deps: ApiDeps) {
  const { storage } = deps;
  return documentRoutes<Scene>({
    segment: "scenes",
    key: "scene",
    listKey: "scenes",
    kind: "scene",
    schema: SceneSchema,
    limits: (scene) => [...namedDocumentIssues(scene), ...innerIdIssues(scene.agents, "instanceId", ["agents"])],
    repo: storage.scenes,
    maxBodyBytes: deps.maxBodyBytes,
    onDeleted: (id) => deps.sceneRuntime.forget(id),
    log: deps.log,
    check: async (scene) => {
      const profiles = new Set(await storage.agents.ids());
      return scene.agents.flatMap((a, i) =>
        profiles.has(a.profileId) ? [] : [{ path: ["agents", i, "profileId"], message: `no agent profile has the id "${a.profileId}" (GET /api/agents lists them)` }],
      );
    },
  });
}
