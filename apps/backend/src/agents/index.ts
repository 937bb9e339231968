import { AgentService, type AgentServiceDeps } from "./agent-service.ts";
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
 * Agents outside scenes: the host that runs their conversations, and its routes. `host` replaces the
 * in-process `AgentService` (queue mode: `../queue/queued-agent-host.ts` sends the loops to workers).
 */
export function createAgents(deps: AgentServiceDeps & { maxBodyBytes: number; host?: AgentHost }): Agents {
  const service = deps.host ?? new AgentService(deps);
  return { service, api: agentsApi({ agents: service, storage: deps.storage, catalog: deps.catalog, maxBodyBytes: deps.maxBodyBytes, log: deps.log }) };
}
