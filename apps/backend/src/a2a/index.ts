import type { AgentHost } from "../agents/agent-host.ts";
import type { AgentsStorage } from "../agents/agents-storage.ts";
import type { SqlHandle } from "../storage/sql-handle.ts";
import { a2aApi } from "./a2a-api.ts";

export { A2A_ROUTES } from "./a2a-api.ts";

/** Every agent as an A2A server: the routes, on the agent host the agent chat uses (this process or workers). */
export function createA2a(deps: { agents: AgentHost; storage: AgentsStorage; sql: SqlHandle; maxBodyBytes: number; version: string }) {
  return a2aApi(deps);
}
