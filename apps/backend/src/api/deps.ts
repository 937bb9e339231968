import type { NodeCatalog, Logger } from "@weft/types";
import type { Storage } from "../storage/storage.ts";
import type { LlmProfileService } from "../llm/profile-service.ts";
import type { AgentHost } from "../agents/agent-host.ts";
import type { SceneService } from "../scenes/scene-service.ts";
import type { PermissionSettings } from "../settings/permission-settings.ts";

/** What the HTTP plugins work with. */
export interface ApiDeps {
  storage: Storage;
  catalog: NodeCatalog;
  llmProfiles: LlmProfileService;
  agents: AgentHost;
  permissions: PermissionSettings;
  /** The scene runtime: a deleted scene is stopped and its runtime state removed. */
  sceneRuntime: Pick<SceneService, "forget">;
  maxBodyBytes: number;
  version: string;
  log: Logger;
}
