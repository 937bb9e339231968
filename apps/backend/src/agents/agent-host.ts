import { z } from "zod";
import { buildAgentManifest, Deliberation, type AgentError } from "@weft/agent-runtime";
import { AgentStatusSchema, AgentStepTraceSchema, ConversationMessageSchema, ConversationSchema, PermissionRequestSchema } from "@weft/types";
import type { NodeCatalog, WorkflowSource } from "@weft/types";
import type { AgentProfile, AgentSessionState, AgentStatus, Conversation, PermissionAnswer, PermissionRequest } from "@weft/types";
import type { AgentsStorage } from "./agents-storage.ts";
import type { ConversationForkBody } from "./conversation-fork.ts";
import { notFound, ServiceError } from "../service-error.ts";

/** The live state of a conversation's agent, as the API shows it. */
export interface AgentConversationState {
  status: AgentStatus;
  running: boolean;
  pendingQuestion?: string;
  pendingPermissions: PermissionRequest[];
  /** Why the last loop ended the way it did, when it says more than the status (e.g. its worker was killed). */
  reason?: string;
}

/** An `AgentConversationState` that crossed a process boundary (a queue-mode worker's answer). */
export const AgentConversationStateSchema = z.object({
  status: AgentStatusSchema,
  running: z.boolean(),
  pendingQuestion: z.string().optional(),
  pendingPermissions: z.array(PermissionRequestSchema),
  reason: z.string().optional(),
});

/** GET /api/conversations/:id: the stored conversation, and its agent's state when it has one. */
export const ConversationViewSchema = z.object({
  conversation: ConversationSchema,
  messages: z.array(ConversationMessageSchema),
  steps: z.array(AgentStepTraceSchema),
  /** The conversations forked from this one (`POST /api/conversations/:id/fork`), oldest first. */
  forks: z.array(ConversationSchema),
  agent: AgentConversationStateSchema.optional(),
});
export type ConversationView = z.output<typeof ConversationViewSchema>;

/** The most forks a conversation's view lists. */
const MAX_FORKS_LISTED = 200;

/**
 * What the agent routes (`agents-api.ts`, `conversations-api.ts`) work with. `AgentService` runs the
 * loops in this process (embedded mode); `../queue/queued-agent-host.ts` sends each message to a
 * `weft worker` and asks the worker holding a loop (queue mode). Both throw `ServiceError` only.
 */
export interface AgentHost {
  /** Stores the message and starts the agent's loop on it; CONFLICT while a loop runs in that conversation. */
  sendMessage(agentId: string, message: string, conversationId?: string, createdBy?: string): Promise<{ conversationId: string }>;
  /** `sendMessage` with this profile (a saved version of it, or with another LLM profile), checked by the caller. */
  sendMessageAs(profile: AgentProfile, message: string, conversationId?: string, createdBy?: string): Promise<{ conversationId: string }>;
  conversation(conversationId: string): Promise<ConversationView>;
  listConversations(agentId: string, limit: number): Promise<Conversation[]>;
  cancel(conversationId: string): Promise<void>;
  answerPermission(conversationId: string, requestId: string, answer: PermissionAnswer): Promise<void>;
  /** Forks the conversation at a step (`./conversation-fork.ts`) and starts the fork's loop; the new conversation's id. */
  fork(conversationId: string, body: ConversationForkBody, createdBy?: string): Promise<{ conversationId: string }>;
  /** Stops taking messages, gives running loops `graceMs` to end, then cancels them. */
  shutdown(graceMs: number): Promise<void>;
}

/** The profile a message goes to, checked as both hosts check it: it exists, and the conversation (if named) is its. */
export async function messageTarget(storage: AgentsStorage, agentId: string, conversationId: string | undefined): Promise<AgentProfile> {
  const profile = (await storage.agents.get(agentId))?.document;
  if (!profile) throw notFound("agent profile", agentId, "GET /api/agents lists them.");
  if (conversationId !== undefined) {
    const conversation = await storage.conversations.get(conversationId);
    if (!conversation) throw notFound("conversation", conversationId, "Leave conversationId out to start a new conversation.");
    if (conversation.agentId !== undefined && conversation.agentId !== agentId) {
      throw new ServiceError("VALIDATION_FAILED", `body.conversationId: conversation "${conversationId}" belongs to agent "${conversation.agentId}", not "${agentId}".`, {
        issues: [{ path: ["conversationId"], message: "belongs to another agent", code: "custom" }],
      });
    }
  }
  return profile;
}

/** An agent whose profile names what cannot run (its deliberation workflow, a tool or skill gone): VALIDATION_FAILED. */
export function cannotRun(profile: AgentProfile, error: AgentError): ServiceError {
  const { code, message, hint } = error;
  return new ServiceError("VALIDATION_FAILED", `Agent "${profile.id}" cannot run: ${message}${hint ? ` ${hint}` : ""}`, { agentError: error, issues: [{ path: [], message, code }] });
}

/**
 * What `AgentInstance.create` checks of a profile before the agent can run, without opening a conversation:
 * for an API process whose loops run elsewhere (queue mode), so a bad profile is refused when the message is sent.
 */
export async function checkRunnable(profile: AgentProfile, sources: { catalog: NodeCatalog; workflows: WorkflowSource }): Promise<void> {
  const deliberation = await Deliberation.load(sources.workflows, profile.deliberationWorkflowId, profile.protocol);
  if (!deliberation.ok) throw cannotRun(profile, deliberation.error);
  const manifest = await buildAgentManifest(profile, { ...sources, agentId: profile.id });
  if (!manifest.ok) throw cannotRun(profile, manifest.error);
}

export function busyError(agentId: string, conversationId: string): ServiceError {
  return new ServiceError(
    "CONFLICT",
    `Agent "${agentId}" is still working in conversation "${conversationId}"; wait for it to finish (agent.finished on /ws) or cancel it (POST /api/conversations/${conversationId}/cancel).`,
    { conversationId },
  );
}

/** The stored parts of a conversation and its saved agent session (404 when there is no such conversation). */
export async function storedConversation(storage: AgentsStorage, conversationId: string): Promise<{ view: ConversationView; session: AgentSessionState | undefined }> {
  const conversation = await storage.conversations.get(conversationId);
  if (!conversation) throw notFound("conversation", conversationId);
  const [messages, steps, session, forks] = await Promise.all([
    storage.conversations.messages(conversationId),
    storage.agentSteps.list(conversationId),
    storage.agentSessions.load(conversationId),
    storage.conversations.listForks(conversationId, MAX_FORKS_LISTED),
  ]);
  return { view: { conversation, messages, steps, forks }, session };
}

/**
 * The agent's state as its saved session tells it, when no process runs its loop now. `running`: a loop
 * is queued for it (queue mode); `withReason`: name why the last loop ended (the queue mode's killed workers).
 */
export function storedAgentState(session: AgentSessionState, options: { running?: boolean; withReason?: boolean } = {}): AgentConversationState {
  const running = options.running ?? false;
  // A loop that was under way when its process stopped is not running any more.
  const status: AgentStatus = session.status === "running" || session.status === "waiting_permission" ? "idle" : session.status;
  return {
    status: running ? "running" : status,
    running,
    ...(session.pendingQuestion ? { pendingQuestion: session.pendingQuestion.question } : {}),
    pendingPermissions: [],
    ...(options.withReason && session.reason !== undefined && !running ? { reason: session.reason } : {}),
  };
}

export async function listAgentConversations(storage: AgentsStorage, agentId: string, limit: number): Promise<Conversation[]> {
  if (!(await storage.agents.get(agentId))) throw notFound("agent profile", agentId);
  return storage.conversations.listByAgent(agentId, limit);
}
