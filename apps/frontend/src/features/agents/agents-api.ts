import { z } from "zod";
import {
  AgentChangeSchema,
  AgentProfileSchema,
  AgentStatusSchema,
  AgentStepTraceSchema,
  ConversationMessageSchema,
  ConversationSchema,
  EffectivePermissionsSchema,
  PermissionRequestSchema,
  type AgentProfile,
  type AgentProfileInput,
  type PermissionAnswer,
} from "@weft/types";
import { ApiClient } from "../../shared/api/client.ts";
import { ok, type ApiError } from "../../shared/api/errors.ts";
import { OkSchema } from "../../shared/api/schemas.ts";

const AgentRecordSchema = z.object({ agent: AgentProfileSchema, updatedAt: z.number() });
const AgentListSchema = z.object({ agents: z.array(AgentProfileSchema.extend({ updatedAt: z.number() })) });
const ConversationListSchema = z.object({ conversations: z.array(ConversationSchema) });
const SentSchema = z.object({ conversationId: z.string() });
const ChangeListSchema = z.object({ changes: z.array(AgentChangeSchema) });

/** Where a conversation's agent stands now (`GET /api/conversations/:id` → `agent`). */
export const AgentConversationStateSchema = z.object({
  status: AgentStatusSchema,
  running: z.boolean(),
  pendingQuestion: z.string().optional(),
  pendingPermissions: z.array(PermissionRequestSchema),
});
export type AgentConversationState = z.infer<typeof AgentConversationStateSchema>;

export const ConversationViewSchema = z.object({
  conversation: ConversationSchema,
  messages: z.array(ConversationMessageSchema),
  steps: z.array(AgentStepTraceSchema),
  /** The conversations forked from this one, oldest first. */
  forks: z.array(ConversationSchema).default([]),
  agent: AgentConversationStateSchema.optional(),
});
export type ConversationView = z.infer<typeof ConversationViewSchema>;

/** `POST /api/conversations/:id/fork`'s body: the step, and at most one of `llmOutput` and `observation`. */
export interface ConversationForkRequest {
  step: number;
  llmOutput?: string;
  observation?: string;
  agentVersion?: number;
}

const enc = encodeURIComponent;

/** Agent profiles and talking to one agent (docs/api.md "Agents"): CRUD, messages, conversations, cancel, permission answers. */
export class AgentsApi extends ApiClient {
  async list() {
    const r = await this.request("GET", "/api/agents", AgentListSchema);
    return r.ok ? ok(r.value.agents) : r;
  }

  async get(id: string) {
    const r = await this.request("GET", `/api/agents/${enc(id)}`, AgentRecordSchema);
    return r.ok ? ok(r.value.agent) : r;
  }

  async create(agent: AgentProfileInput) {
    const r = await this.request("POST", "/api/agents", AgentRecordSchema, { agent });
    return r.ok ? ok(r.value.agent) : r;
  }

  /** A stale `baseRevision` fails with REVISION_CONFLICT; `agentConflict(error)` reads what is stored now. */
  async update(agent: AgentProfileInput & { id: string }, baseRevision: number) {
    const r = await this.request("PUT", `/api/agents/${enc(agent.id)}`, AgentRecordSchema, { agent, baseRevision });
    return r.ok ? ok(r.value.agent) : r;
  }

  async remove(id: string) {
    const r = await this.request("DELETE", `/api/agents/${enc(id)}`, OkSchema);
    return r.ok ? ok(true as const) : r;
  }

  /** What the agent may do: the owner's rules as the ceiling, narrowed by its own, with where each line comes from (editors and owners). */
  effectivePermissions(id: string) {
    return this.request("GET", `/api/agents/${enc(id)}/permissions`, EffectivePermissionsSchema);
  }

  /** Who changed the profile and what it became, newest first. */
  async changes(id: string, limit = 20) {
    const r = await this.request("GET", `/api/agents/${enc(id)}/changes?limit=${limit}`, ChangeListSchema);
    return r.ok ? ok(r.value.changes) : r;
  }

  /** Without `conversationId` a new conversation starts; while the agent waits for the user, the message is the answer. */
  async sendMessage(agentId: string, message: string, conversationId?: string) {
    const r = await this.request("POST", `/api/agents/${enc(agentId)}/messages`, SentSchema, { message, ...(conversationId ? { conversationId } : {}) });
    return r.ok ? ok(r.value.conversationId) : r;
  }

  /** Most recent first. */
  async conversations(agentId: string, limit = 50) {
    const r = await this.request("GET", `/api/agents/${enc(agentId)}/conversations?limit=${limit}`, ConversationListSchema);
    return r.ok ? ok(r.value.conversations) : r;
  }

  conversation(id: string) {
    return this.request("GET", `/api/conversations/${enc(id)}`, ConversationViewSchema);
  }

  async cancel(conversationId: string) {
    const r = await this.request("POST", `/api/conversations/${enc(conversationId)}/cancel`, OkSchema);
    return r.ok ? ok(true as const) : r;
  }

  /**
   * Forks the conversation at `step` (steps before it come from the record) and continues it live: with the step's
   * observation or LLM output edited, and/or another version of the agent profile. The fork's conversation id.
   */
  async fork(conversationId: string, body: ConversationForkRequest) {
    const r = await this.request("POST", `/api/conversations/${enc(conversationId)}/fork`, SentSchema, body);
    return r.ok ? ok(r.value.conversationId) : r;
  }

  async answerPermission(conversationId: string, requestId: string, answer: PermissionAnswer) {
    const r = await this.request("POST", `/api/conversations/${enc(conversationId)}/permissions/${enc(requestId)}`, OkSchema, answer);
    return r.ok ? ok(true as const) : r;
  }
}

const ConflictDetailsSchema = z.object({ currentRevision: z.number(), current: AgentProfileSchema });

/** The stored profile a REVISION_CONFLICT reports, or null when the error is something else. */
export function agentConflict(error: ApiError): { currentRevision: number; current: AgentProfile } | null {
  if (error.code !== "REVISION_CONFLICT") return null;
  const parsed = ConflictDetailsSchema.safeParse(error.details);
  return parsed.success ? parsed.data : null;
}

export const agentsApi = new AgentsApi();
