import { AgentService, type AgentServiceDeps } from "./agent-service.ts";
import { agentsApi } from "./agents-api.ts";

export { AgentService } from "./agent-service.ts";

export interface Agents {
  service: AgentService;
  /** The Elysia plugin with the agent profile and agent message routes. */
  api: ReturnType<typeof agentsApi>;
}

/** Agents outside scenes: the service that runs their conversations, and its routes. */
export function createAgents(deps: AgentServiceDeps & { maxBodyBytes: number }): Agents {
  const service = new AgentService(deps);
  return { service, api: agentsApi({ agents: service, storage: deps.storage, catalog: deps.catalog, maxBodyBytes: deps.maxBodyBytes, log: deps.log }) };
}
