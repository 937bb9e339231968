import { AgentProfileSchema, type AgentProfile } from "@weft/types";
import type { ApiDeps } from "./deps.ts";
import { documentRoutes } from "./document-routes.ts";

/** Agent profile CRUD; references (workflows, node types, LLM profile) must exist. */
export function agentsApi(deps: ApiDeps) {
  const { storage, catalog } = deps;
  return documentRoutes<AgentProfile>({
    segment: "agents",
    key: "agent",
    listKey: "agents",
    kind: "agent profile",
    schema: AgentProfileSchema,
    repo: storage.agents,
    maxBodyBytes: deps.maxBodyBytes,
    check: async (agent) => {
      const problems: { path: (string | number)[]; message: string }[] = [];
      const workflowIds = new Set(await storage.workflows.ids());
      if (!workflowIds.has(agent.deliberationWorkflowId)) {
        problems.push({ path: ["deliberationWorkflowId"], message: `no workflow has the id "${agent.deliberationWorkflowId}" (GET /api/workflows lists them)` });
      }
      agent.skills.forEach((id, i) => {
        if (!workflowIds.has(id)) problems.push({ path: ["skills", i], message: `no workflow has the id "${id}"` });
      });
      agent.tools.forEach((type, i) => {
        if (catalog.get(type)) return;
        const near = catalog.suggest(type);
        problems.push({ path: ["tools", i], message: `unknown node type "${type}"${near.length ? ` (did you mean ${near.map((n) => `"${n}"`).join(" or ")}?)` : ""}` });
      });
      if (agent.llmProfileId !== undefined && !(await storage.llmProfiles.get(agent.llmProfileId))) {
        problems.push({ path: ["llmProfileId"], message: `no LLM profile has the id "${agent.llmProfileId}" (GET /api/llm-profiles lists them)` });
      }
      return problems;
    },
  });
}
