import { z } from "zod";
import { effectivePermissions } from "@weft/agent-runtime";
import { AgentChangeSchema, AgentProfileSchema, ConversationSchema, EffectivePermissionsSchema, namedDocumentIssues, type AgentProfile } from "@weft/types";
import type { Logger, NodeCatalog, PermissionPolicy } from "@weft/types";
import { documentRoutes } from "../api/document-routes.ts";
import { jsonResponse, notFound } from "../api/errors.ts";
import { parseWith, readBody } from "../api/body.ts";
import { documentRouteEntries, route, type ApiRoute } from "../api/openapi-routes.ts";
import { MessageBody } from "./conversations-api.ts";
import type { AgentsStorage } from "./agents-storage.ts";
import type { AgentHost } from "./agent-host.ts";
import { ruleIssues } from "../settings/permission-settings.ts";
import { actorOf, authorOf } from "../auth/principal.ts";
import type { AgentChangeLog } from "./agent-change-log.ts";
import { inCallerTrace } from "../tracing/caller-trace.ts";
import { changeOf, refuseClaimedId } from "./agent-governance.ts";

export interface AgentsApiDeps {
  agents: AgentHost;
  storage: AgentsStorage;
  catalog: NodeCatalog;
  maxBodyBytes: number;
  /** The owner's permission rules now in force (Settings → Permissions): the ceiling of every agent's. */
  permissions: () => PermissionPolicy;
  changes: AgentChangeLog;
  log: Logger;
}

const ConversationsQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(50) });

/** Problems with what a profile names: workflows, node types, LLM profile must all exist; permission rules must name tools. */
async function referenceProblems(deps: AgentsApiDeps, agent: AgentProfile): Promise<{ path: (string | number)[]; message: string }[]> {
  const { storage, catalog } = deps;
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
  for (const issue of ruleIssues(agent.permissions ?? [], ["permissions"])) problems.push({ path: issue.path, message: issue.message });
  return problems;
}

/** Agent profile CRUD, messages to an agent, and an agent's conversations. */
export function agentsApi(deps: AgentsApiDeps) {
  return (
    documentRoutes<AgentProfile>({
      segment: "agents",
      key: "agent",
      listKey: "agents",
      kind: "agent profile",
      schema: AgentProfileSchema,
      limits: (agent) => namedDocumentIssues(agent),
      repo: deps.storage.agents,
      maxBodyBytes: deps.maxBodyBytes,
      check: (agent) => referenceProblems(deps, agent),
      // An update keeps the id (the path names it), so only a creation can claim one.
      guard: async (agent, request, stored) => (stored ? undefined : refuseClaimedId(deps.permissions(), agent.id, request)),
      onWritten: (change, request) => deps.changes.record(changeOf(change, request)),
      savedBy: authorOf,
      log: deps.log,
    })
      // A caller's `traceparent`: the agent's steps join its trace.
      .post("/api/agents/:id/messages", ({ params, request }) =>
        inCallerTrace(request, async () => {
          const body = await readBody(request, MessageBody, deps.maxBodyBytes);
          return jsonResponse(await deps.agents.sendMessage(params.id, body.message, body.conversationId, actorOf(request)), 202);
        }),
      )
      .get("/api/agents/:id/conversations", async ({ params, query }) => {
        const { limit } = parseWith(ConversationsQuery, query, "query");
        return jsonResponse({ conversations: await deps.agents.listConversations(params.id, limit) });
      })
      .get("/api/agents/:id/permissions", async ({ params }) => {
        const agent = (await deps.storage.agents.get(params.id))?.document;
        if (!agent) throw notFound("agent profile", params.id, "GET /api/agents lists them.");
        return jsonResponse(effectivePermissions(deps.permissions(), agent.permissions ?? [], agent.id, agent.tools));
      })
      .get("/api/agents/:id/changes", async ({ params, query }) => {
        const { limit } = parseWith(ConversationsQuery, query, "query");
        return jsonResponse({ changes: await deps.changes.list(params.id, limit) });
      })
  );
}

/** The agent routes, as the OpenAPI document describes them. */
export const AGENTS_ROUTES: readonly ApiRoute[] = [
  ...documentRouteEntries("agents", "agents", "agent", AgentProfileSchema),
  route("GET", "/api/agents/:id/conversations", "agents", "An agent's conversations", { query: ConversationsQuery, response: z.object({ conversations: z.array(ConversationSchema) }) }),
  route("GET", "/api/agents/:id/permissions", "agents", "An agent's effective permissions (the owner's ceiling ∩ its own rules)", { response: EffectivePermissionsSchema }),
  route("GET", "/api/agents/:id/changes", "agents", "Who changed an agent profile, and what it became", { query: ConversationsQuery, response: z.object({ changes: z.array(AgentChangeSchema) }) }),
  route("POST", "/api/agents/:id/messages", "agents", "Send an agent a message", { body: MessageBody, response: z.object({ conversationId: z.string() }), status: 202 }),
];
