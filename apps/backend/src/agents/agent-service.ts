import { randomUUID } from "node:crypto";
import { AgentInstance, type ExecutionEngine, type PermissionBroker } from "@weft/agent-runtime";
import type {
  AgentProfile,
  AgentStatus,
  AgentStepTrace,
  Conversation,
  ConversationMessage,
  LlmService,
  Logger,
  NodeCatalog,
  PermissionAnswer,
  PermissionRequest,
  ToolHostService,
  Workflow,
  WorkflowSource,
} from "@weft/types";
import type { Storage } from "../storage/storage.ts";
import type { EventJournal } from "../events/event-journal.ts";
import { ExternalRunRecorder } from "../runs/external-run-recorder.ts";
import { notFound, ServiceError } from "../service-error.ts";
import { messageOf } from "@weft/types";

export interface AgentServiceDeps {
  storage: Storage;
  journal: EventJournal;
  catalog: NodeCatalog;
  workflows: WorkflowSource;
  engineFor(key: string): ExecutionEngine;
  llm: LlmService;
  toolHost?: ToolHostService;
  permissionBroker: PermissionBroker;
  log: Logger;
}

/** The live state of a conversation's agent, as the API shows it. */
export interface AgentConversationState {
  status: AgentStatus;
  running: boolean;
  pendingQuestion?: string;
  pendingPermissions: PermissionRequest[];
}

const MAX_LIVE = 256;

interface LiveAgent {
  instance: AgentInstance;
  profileRevision: number;
  loop?: Promise<void>;
  /** The user whose message the current loop answers: its runs and tool calls name them. */
  startedBy?: string;
}

/**
 * Runs agents for the API: one AgentInstance per conversation, kept while the server runs (so a
 * pending question or permission survives between messages) and restored from storage after a
 * restart. Conversation events go through the journal on the conversation's stream; the runs an
 * agent starts are recorded like any other run.
 */
export class AgentService {
  private readonly live = new Map<string, LiveAgent>();
  /** Instances being made, so two messages at once to a new conversation share one agent. */
  private readonly making = new Map<string, Promise<LiveAgent>>();
  private stopping = false;

  constructor(private readonly deps: AgentServiceDeps) {}

  /**
   * Stores the user's message and starts the agent's loop on it; resolves once the loop is under way.
   * `createdBy` (the request's user) is recorded on the runs the loop causes and named on its tool calls.
   */
  async sendMessage(agentId: string, message: string, conversationId?: string, createdBy?: string): Promise<{ conversationId: string }> {
    if (this.stopping) throw new ServiceError("SERVICE_UNAVAILABLE", "The server is shutting down; send the message again once it is back.");
    const { storage } = this.deps;
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
    const id = conversationId ?? randomUUID();
    let making = this.making.get(id);
    if (!making) {
      making = this.agentFor(profile, id).finally(() => this.making.delete(id));
      this.making.set(id, making);
    }
    const agent = await making;
    if (agent.loop)
      throw new ServiceError(
        "CONFLICT",
        `Agent "${agentId}" is still working in conversation "${id}"; wait for it to finish (agent.finished on /ws) or cancel it (POST /api/conversations/${id}/cancel).`,
        { conversationId: id },
      );
    // Set before the loop starts and only while no other loop runs here (refused above): each run reads the user of its own loop.
    agent.startedBy = createdBy;
    agent.loop = this.runLoop(agent, id, message);
    return { conversationId: id };
  }

  private async agentFor(profile: AgentProfile, conversationId: string): Promise<LiveAgent> {
    const current = this.live.get(conversationId);
    if (current && (current.loop || current.profileRevision === profile.revision)) return current;
    // The profile changed since this conversation's agent was made: continue it with the new one.
    current?.instance.dispose();
    this.live.delete(conversationId);

    const { storage, journal } = this.deps;
    const snapshots = new Map<string, Workflow>();
    for (const id of [profile.deliberationWorkflowId, ...profile.skills]) {
      const stored = await storage.workflows.get(id);
      if (stored) snapshots.set(id, stored.document);
    }
    // `agent` is assigned below, before any loop (and so any run) starts.
    let agent: LiveAgent | undefined;
    const recorder = new ExternalRunRecorder(
      journal,
      (workflowId) => snapshots.get(workflowId),
      () => agent?.startedBy,
    );
    await journal.open(conversationId);
    const created = await AgentInstance.create({
      profile,
      engine: this.deps.engineFor(`agent:${profile.id}`),
      catalog: this.deps.catalog,
      workflows: this.deps.workflows,
      conversations: storage.conversations,
      conversationId,
      llm: this.deps.llm,
      ...(this.deps.toolHost ? { toolHost: this.deps.toolHost } : {}),
      permissionBroker: this.deps.permissionBroker,
      stateStore: storage.agentSessions,
      onEvent: (event) => void journal.append(conversationId, event),
      onRunEvent: recorder.onEvent,
      logger: this.deps.log,
    });
    if (!created.ok) {
      journal.close(conversationId);
      const { code, message, hint } = created.error;
      throw new ServiceError("VALIDATION_FAILED", `Agent "${profile.id}" cannot run: ${message}${hint ? ` ${hint}` : ""}`, { agentError: created.error, issues: [{ path: [], message, code }] });
    }
    agent = { instance: created.value, profileRevision: profile.revision };
    this.live.set(conversationId, agent);
    this.evictIdle(conversationId);
    return agent;
  }

  /**
   * Keeps at most MAX_LIVE agents in memory: the least recently made idle ones go first. Nothing is
   * lost — their state is stored and they are made again on the next message.
   */
  private evictIdle(keep: string): void {
    for (const [id, agent] of this.live) {
      if (this.live.size <= MAX_LIVE) return;
      if (id === keep || agent.loop || agent.instance.pendingPermissions().length > 0) continue;
      agent.instance.dispose();
      this.live.delete(id);
      this.deps.journal.close(id);
    }
  }

  private async runLoop(agent: LiveAgent, conversationId: string, message: string): Promise<void> {
    try {
      const outcome = await agent.instance.sendMessage(message, agent.startedBy !== undefined ? { userId: agent.startedBy } : {});
      if (!outcome.ok) {
        this.deps.log.error("agent loop did not start", { conversationId, code: outcome.error.code, error: outcome.error.message });
        return;
      }
      await this.deps.storage.agentSteps.save(conversationId, outcome.value.steps);
    } catch (error) {
      this.deps.log.error("agent loop failed", { conversationId, error: messageOf(error) });
    } finally {
      agent.loop = undefined;
      await this.deps.journal.flush().catch(() => undefined);
    }
  }

  async conversation(conversationId: string): Promise<{ conversation: Conversation; messages: ConversationMessage[]; steps: AgentStepTrace[]; agent?: AgentConversationState }> {
    const { storage } = this.deps;
    const conversation = await storage.conversations.get(conversationId);
    if (!conversation) throw notFound("conversation", conversationId);
    const [messages, steps, session] = await Promise.all([storage.conversations.messages(conversationId), storage.agentSteps.list(conversationId), storage.agentSessions.load(conversationId)]);
    const live = this.live.get(conversationId);
    let agent: AgentConversationState | undefined;
    if (live) {
      const question = live.instance.pendingQuestion;
      agent = { status: live.instance.status, running: live.loop !== undefined, ...(question ? { pendingQuestion: question } : {}), pendingPermissions: live.instance.pendingPermissions() };
    } else if (session) {
      // A loop that was under way when the server stopped is not running any more.
      const status: AgentStatus = session.status === "running" || session.status === "waiting_permission" ? "idle" : session.status;
      agent = { status, running: false, ...(session.pendingQuestion ? { pendingQuestion: session.pendingQuestion.question } : {}), pendingPermissions: [] };
    }
    return { conversation, messages, steps, ...(agent ? { agent } : {}) };
  }

  async listConversations(agentId: string, limit: number): Promise<Conversation[]> {
    if (!(await this.deps.storage.agents.get(agentId))) throw notFound("agent profile", agentId);
    return this.deps.storage.conversations.listByAgent(agentId, limit);
  }

  async cancel(conversationId: string): Promise<void> {
    const live = this.live.get(conversationId);
    if (!live) {
      if (!(await this.deps.storage.conversations.get(conversationId))) throw notFound("conversation", conversationId);
      return;
    }
    live.instance.cancel();
  }

  async answerPermission(conversationId: string, requestId: string, answer: PermissionAnswer): Promise<void> {
    const live = this.live.get(conversationId);
    if (!live) {
      if (!(await this.deps.storage.conversations.get(conversationId))) throw notFound("conversation", conversationId);
      throw notFound("permission request", requestId, "Nothing in this conversation waits for permission now.");
    }
    const result = live.instance.answerPermission(requestId, answer);
    if (!result.ok) throw notFound("permission request", requestId, result.error.hint ?? "");
  }

  /** Stops taking messages, gives running loops `graceMs` to end, then cancels them. */
  async shutdown(graceMs: number): Promise<void> {
    this.stopping = true;
    const loops = () => [...this.live.values()].flatMap((a) => (a.loop ? [a.loop] : []));
    if (loops().length > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([Promise.all(loops()), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      for (const agent of this.live.values()) agent.instance.cancel();
      await Promise.all(loops());
    }
    for (const agent of this.live.values()) agent.instance.dispose();
    this.live.clear();
  }
}
