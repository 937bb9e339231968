import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { messageOf, type Logger } from "@weft/types";
import type { EventHub } from "../events/event-hub.ts";
import type { RunService } from "../runs/run-service.ts";
import type { RunsStorage } from "../runs/runs-storage.ts";
import { HttpError } from "../api/errors.ts";
import { ServiceError } from "../service-error.ts";
import { runEnding } from "../runs/run-ending.ts";
import { findSkill, refusedResult, skillTools, toolResult } from "./skill-tools.ts";
import { RunProgress } from "./run-progress.ts";
import { callerOf, mayCall, requireAccess, type McpCaller, type McpExtra } from "./mcp-caller.ts";
import { checkedResource, listResources, readResource, RESOURCE_TEMPLATES } from "./weft-resources.ts";
import { RunSubscriptions } from "./run-subscriptions.ts";
import { getPrompt, listPrompts, type AgentProfiles } from "./agent-prompts.ts";
import { ApprovalElicitation, type McpApprovals } from "./approval-elicitation.ts";
import { clientSampler, offersSampling, type McpCallerModels } from "./client-sampling.ts";

export interface SkillServerDeps {
  storage: RunsStorage;
  runs: RunService;
  hub: EventHub;
  agents: AgentProfiles;
  approvals: McpApprovals;
  callerModels: McpCallerModels;
  version: string;
  log: Logger;
  /** The least time between two updates of one subscribed resource (default `RESOURCE_UPDATE_MS`). */
  resourceUpdateMs?: number;
}

/** Starts the skill as a Weft run (recorded in the run history like any other) and answers with how it ended. */
async function callSkill(deps: SkillServerDeps, server: Server, name: string, inputs: Record<string, unknown>, extra: McpExtra, caller: McpCaller): Promise<CallToolResult> {
  const skill = await findSkill(deps.storage, name);
  if (!skill) {
    throw new McpError(ErrorCode.InvalidParams, `There is no skill "${name}" in Weft; tools/list names the skills (workflows with workflow-input/-output nodes).`);
  }
  requireAccess(caller, "POST", `/api/workflows/${encodeURIComponent(name)}/runs`, "run skills");
  let runId: string;
  let withdrawSampler: (() => void) | undefined;
  try {
    const request = { workflowId: name, inputs, createdBy: caller.userId };
    // A client that offers sampling may answer the run's opted-in LLM nodes; offered before the run can reach one.
    // Only a run executed in this process can use it: a queue worker has no way back to this client.
    if (offersSampling(server) && deps.runs.mode === "embedded") {
      const prepared = await deps.runs.prepare(request);
      runId = prepared.record.id;
      withdrawSampler = deps.callerModels.offer(runId, clientSampler(extra));
      await deps.runs.store(prepared);
      await deps.runs.dispatchStored(prepared);
    } else ({ runId } = await deps.runs.start(request));
  } catch (error) {
    withdrawSampler?.();
    if (error instanceof HttpError || error instanceof ServiceError) return refusedResult(error.code, deps.storage.redactor.text(error.message));
    throw error;
  }
  // The client cancelled the call or went away: the run stops too, and ends as cancelled in the history.
  const cancel = () => void deps.runs.cancel(runId).catch((error: unknown) => deps.log.warn("cancelling an MCP call's run failed", { runId, error: messageOf(error) }));
  extra.signal.addEventListener("abort", cancel, { once: true });
  const progressToken = extra._meta?.progressToken;
  const progress = progressToken === undefined ? undefined : new RunProgress(deps.storage, deps.hub, runId, progressToken, extra.sendNotification, deps.log);
  // A client that answers forms is asked to decide the run's approvals; any other leaves them in the inbox.
  const elicitation = ApprovalElicitation.offeredBy(server) ? new ApprovalElicitation(deps, runId, caller, extra) : undefined;
  try {
    await elicitation?.start();
    // Tells the client at once which run to look for in Weft (and starts the answer's stream), then what ran before the subscription.
    await progress?.started();
    await progress?.flush();
    const ending = await runEnding(deps.hub, deps.storage, runId);
    // Every node's progress reaches the client before the answer that ends the call.
    await progress?.flush();
    return toolResult(runId, ending, skill);
  } finally {
    progress?.close();
    elicitation?.close();
    withdrawSampler?.();
    extra.signal.removeEventListener("abort", cancel);
  }
}

/**
 * Weft's MCP server: skills as tools, workflows and runs as resources, agents' system prompts as
 * prompts. Every handler acts for the user of the HTTP request that carried it (`callerOf`), with
 * what their role may do in the API. `subscriptions` is the session's; absent for a request sent
 * without a session, which cannot be told of updates later.
 */
export function skillServer(deps: SkillServerDeps, subscriptions?: (server: Server) => RunSubscriptions): Server {
  const server = new Server({ name: "weft", title: "Weft skills", version: deps.version }, { capabilities: { tools: {}, resources: { subscribe: true }, prompts: {} } });
  const subs = subscriptions?.(server);
  server.onclose = () => subs?.close();
  // Only the skills the caller may run: a viewer's client lists none rather than tools that always refuse.
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const caller = callerOf(extra);
    return { tools: (await skillTools(deps.storage)).filter((tool) => mayCall(caller, "POST", `/api/workflows/${encodeURIComponent(tool.name)}/runs`)) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => callSkill(deps, server, request.params.name, request.params.arguments ?? {}, extra, callerOf(extra)));
  server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => ({ resources: await listResources(deps, callerOf(extra)) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => readResource(deps, request.params.uri, callerOf(extra)));
  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    const resource = checkedResource(request.params.uri, callerOf(extra));
    if (!subs) throw new McpError(ErrorCode.InvalidRequest, "Subscriptions need a session: send initialize first and then the Mcp-Session-Id header it answers with.");
    await subs.subscribe(request.params.uri, resource);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subs?.unsubscribe(request.params.uri);
    return {};
  });
  server.setRequestHandler(ListPromptsRequestSchema, async (_request, extra) => ({ prompts: await listPrompts(deps.agents, callerOf(extra)) }));
  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => getPrompt(deps.agents, request.params.name, request.params.arguments ?? {}, callerOf(extra)));
  return server;
}

/** The session's subscriptions, telling its client through this server. */
export function sessionSubscriptions(deps: SkillServerDeps): (server: Server) => RunSubscriptions {
  return (server) =>
    new RunSubscriptions(
      deps.storage,
      deps.hub,
      (uri) => server.sendResourceUpdated({ uri }).catch((error: unknown) => deps.log.debug("an MCP resource update was not sent", { uri, error: messageOf(error) })),
      deps.resourceUpdateMs,
    );
}
