import { innerIdIssues, namedDocumentIssues, SceneSchema, type Logger, type PermissionPolicy, type Scene } from "@weft/types";
import { documentRoutes } from "../api/document-routes.ts";
import { documentRouteEntries, type ApiRoute } from "../api/openapi-routes.ts";
import type { AgentsStorage } from "../agents/agents-storage.ts";
import { refuseClaimedId } from "../agents/agent-governance.ts";
import type { SceneHost } from "./scene-host.ts";
import { authorOf } from "../auth/principal.ts";

export interface SceneDocumentsApiDeps {
  storage: AgentsStorage;
  /** The owner's permission rules now in force (Settings → Permissions). */
  permissions: () => PermissionPolicy;
  /** The scene runtime: a deleted scene is stopped and its runtime state removed. */
  sceneRuntime: Pick<SceneHost, "forget">;
  maxBodyBytes: number;
  log: Logger;
}

/**
 * Scene CRUD; every agent instance must name an existing agent profile, and only owners may add an instance whose id an
 * owner's allow/ask rule names (see agents/agent-governance.ts). A deleted scene's runtime state goes with it.
 */
export function sceneDocumentsApi(deps: SceneDocumentsApiDeps) {
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
    // A scene agent acts under its instance id, which owner rules name as they name agent ids: a new instance id is guarded as a new agent's.
    guard: async (scene, request, stored) => {
      const existing = new Set(stored?.agents.map((a) => a.instanceId) ?? []);
      for (const agent of scene.agents) if (!existing.has(agent.instanceId)) await refuseClaimedId(deps.permissions(), agent.instanceId, request);
    },
    serverSet: keepForkOf,
    savedBy: authorOf,
    log: deps.log,
    check: async (scene) => {
      const profiles = new Set(await storage.agents.ids());
      return scene.agents.flatMap((a, i) =>
        profiles.has(a.profileId) ? [] : [{ path: ["agents", i, "profileId"], message: `no agent profile has the id "${a.profileId}" (GET /api/agents lists them)` }],
      );
    },
  });
}

/** `forkOf` is set by the fork route only: a write keeps the stored one (none on a creation), whatever it sent. */
function keepForkOf(scene: Scene, stored: Scene | undefined): Scene {
  const kept: Scene = { ...scene };
  delete kept.forkOf;
  return stored?.forkOf ? { ...kept, forkOf: stored.forkOf } : kept;
}

/** The scene definitions' routes, as the OpenAPI document describes them. */
export const SCENE_DOCUMENTS_ROUTES: readonly ApiRoute[] = documentRouteEntries("scenes", "scenes", "scene", SceneSchema);
