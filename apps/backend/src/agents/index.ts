import type { PermissionPolicy } from "@weft/types";
import type { SqlHandle } from "../storage/sql-handle.ts";
import { AgentService, type AgentServiceDeps } from "./agent-service.ts";
import { openAgentChangeLog } from "./agent-change-log.ts";
import type { AgentHost } from "./agent-host.ts";
import { agentsApi } from "./agents-api.ts";

export { AgentService } from "./agent-service.ts";
export type { AgentHost } from "./agent-host.ts";

export interface Agents {
  service: AgentHost;
  /** The Elysia plugin with the agent profile and agent message routes. */
  api: ReturnType<typeof agentsApi>;
}

/**
 * Agents outside scenes: the host that runs their conversations, and its routes (with the owner's
 * permission rules, to show an agent's effective permissions and guard ids those rules name, and the
 * storage's connection for the change log). `host` replaces the
 * in-process `AgentService` (queue mode: `../queue/queued-agent-host.ts` sends the loops to workers).
 */
export function createAgents(deps: AgentServiceDeps & { maxBodyBytes: number; host?: AgentHost; permissions: () => PermissionPolicy; sql: SqlHandle }): Agents {
  const service = deps.host ?? new AgentService(deps);
  const changes = openAgentChangeLog(deps.sql);
  return { service, api: agentsApi({ agents: service, storage: deps.storage, catalog: deps.catalog, maxBodyBytes: deps.maxBodyBytes, permissions: deps.permissions, changes, log: deps.log }) };
}
