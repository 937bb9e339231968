import type { PermissionPolicy } from "@weft/types";
import { AgentService, type AgentServiceDeps } from "./agent-service.ts";
import { AgentChangeLog } from "./agent-change-log.ts";
import type { AgentHost } from "./agent-host.ts";
import { agentsApi } from "./agents-api.ts";

export { AgentService } from "./agent-service.ts";
export type { AgentHost } from "./agent-host.ts";

export interface Agents {
  service: AgentHost;
  /** The Elysia plugin with the agent profile and agent message routes. */
  api: ReturnType<typeof agentsApi>;
  /** Continues a conversation on an approval's decision (`AgentService.continueAfterApproval`); absent in queue mode (no `ask_approval` there). */
  continueAfterApproval?: AgentService["continueAfterApproval"];
}

/**
 * Agents outside scenes: the host that runs their conversations, and its routes (with the owner's
 * permission rules, to show an agent's effective permissions and guard ids those rules name, and the
 * change log on the storage's connection). `host` replaces the in-process `AgentService` (queue mode: `../queue/queued-agent-host.ts` sends the loops to workers).
 */
export function createAgents(deps: AgentServiceDeps & { maxBodyBytes: number; host?: AgentHost; permissions: () => PermissionPolicy }): Agents {
  const changes = new AgentChangeLog(deps.storage);
  const routes = (agents: AgentHost) => agentsApi({ agents, storage: deps.storage, catalog: deps.catalog, maxBodyBytes: deps.maxBodyBytes, permissions: deps.permissions, changes, log: deps.log });
  if (deps.host) return { service: deps.host, api: routes(deps.host) };
  const local = new AgentService(deps);
  return { service: local, api: routes(local), continueAfterApproval: (decided) => local.continueAfterApproval(decided) };
}
