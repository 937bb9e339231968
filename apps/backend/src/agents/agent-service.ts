import { randomUUID } from "node:crypto";
import { AgentInstance, type AgentResult, type AgentRunOptions, type AgentRunResult, type ExecutionEngine, type PermissionBroker } from "@weft/agent-runtime";
import type { AgentProfile, ApprovalOutcome, ApprovalRequest, Conversation, LlmService, Logger, NodeCatalog, PermissionAnswer, ToolHostService, Workflow, WorkflowSource } from "@weft/types";
import type { AgentsStorage } from "./agents-storage.ts";
import type { EventJournal } from "../events/event-journal.ts";
import { ExternalRunRecorder } from "../runs/external-run-recorder.ts";
import { notFound, ServiceError } from "../service-error.ts";
import { messageOf } from "@weft/types";
import { prepareFork } from "./conversation-fork-service.ts";
import type { ConversationForkBody } from "./conversation-fork.ts";
import { givenFirstAnswer } from "./given-answer-llm.ts";
import { busyError, cannotRun, listAgentConversations, messageTarget, storedAgentState, storedConversation, type AgentConversationState, type AgentHost, type ConversationView } from "./agent-host.ts";

export type { AgentConversationState } from "./agent-host.ts";

export interface AgentServiceDeps {
  storage: AgentsStorage;
  journal: EventJournal;
  catalog: NodeCatalog;
  workflows: WorkflowSource;
  engineFor(key: string): ExecutionEngine;
  llm: LlmService;
  toolHost?: ToolHostService;
  permissionBroker: PermissionBroker;
  log: Logger;
  /**
   * Keep a conversation's agent in memory after its loop (default true: a pending permission or question
   * is answered without a reload). A queue-mode worker passes false: the next message may go to another
   * worker, so each loop starts from the stored state and leaves nothing behind (its event numbering included).
   */
  keepIdle?: boolean;
  /**
   * Where an `ask_approval` request is stored to be decided (the approvals inbox, wired at composition), for profiles that enable it (`askApproval`); without it the
   * agent gets an error observation for the call (a queue-mode worker: nothing there could continue the loop on a decision).
   */
  approvals?: {
    ask(ask: { conversationId: string; agentId: string; step: number; request: ApprovalRequest }): Promise<void>;
    /** Closes the conversation's pending approval (it was cancelled while waiting): out of the inbox, a decision refused. */
    close(conversationId: string): Promise<void>;
  };
  /** Told of each run a loop starts (a queue-mode worker notes them, so a worker that takes over after a kill can close them). */
  onRunStarted?: (conversationId: string, runId: string) => void;
}

const MAX_LIVE = 256;

interface LiveAgent {
  instance: AgentInstance;
  profileRevision: number;
  loop?: Promise<void>;
  /** The user whose message the current loop answers: its runs and tool calls name them. */
  startedBy?: string;
  /**
   * Cancels the current loop from its start: `AgentInstance.cancel` only reaches a loop once it runs its steps, so a
   * cancel while the message is still being stored (a client gone at once) would be lost without this.
   */
  stop?: AbortController;
}

/**
 * Runs agents for the API: one AgentInstance per conversation, kept while the server runs (so a
 * pending question or permission survives between messages) and restored from storage after a
 * restart. Conversation events go through the journal on the conversation's stream; the runs an
 * agent starts are recorded like any other run.
 */
export class AgentService implements AgentHost {
  private readonly live = new Map<string, LiveAgent>();
  /** Instances being made, so two messages at once to a new conversation share one agent. */
  private readonly making = new Map<string, Promise<LiveAgent>>();
  private stopping = false;

  constructor(private readonly deps: AgentServiceDeps) {}

  /**
   * Stores the user's message and starts the agent's loop on it; resolves once the loop is under way.
   * `createdBy` (the request's user) is recorded on the runs the loop causes and named on its tool calls.
   * `signal` stops the loop as `cancel` does (a queue-mode worker's cancel that came before the loop).
   */
  async sendMessage(agentId: string, message: string, conversationId?: string, createdBy?: string, options: { signal?: AbortSignal } = {}): Promise<{ conversationId: string }> {
    if (this.stopping) throw new ServiceError("SERVICE_UNAVAILABLE", "The server is shutting down; send the message again once it is back.");
    const profile = await messageTarget(this.deps.storage, agentId, conversationId);
    return this.sendMessageAs(profile, message, conversationId, createdBy, options);
  }

  /**
   * `sendMessage` with this profile instead of the stored one (an eval case runs a saved version of it, or with another
   * LLM profile): the caller has checked the profile; a conversation it made keeps running with it.
   */
  async sendMessageAs(profile: AgentProfile, message: string, conversationId?: string, createdBy?: string, options: { signal?: AbortSignal } = {}): Promise<{ conversationId: string }> {
    if (this.stopping) throw new ServiceError("SERVICE_UNAVAILABLE", "The server is shutting down; send the message again once it is back.");
    const agentId = profile.id;
    const id = conversationId ?? randomUUID();
    let making = this.making.get(id);
    if (!making) {
      making = this.agentFor(profile, id).finally(() => this.making.delete(id));
      this.making.set(id, making);
    }
    const agent = await making;
    if (agent.loop) throw busyError(agentId, id);
    const approval = agent.instance.pendingApproval;
    if (approval)
      throw new ServiceError(
        "CONFLICT",
        `Conversation "${id}" waits for an approval of: ${approval.question}. A message does not answer it; decide it in the approvals inbox (POST /api/approvals/:id/decision).`,
        {
          reason: "WAITING_FOR_APPROVAL",
        },
      );
    // Set before the loop starts and only while no other loop runs here (refused above): each run reads the user of its own loop.
    agent.startedBy = createdBy;
    agent.loop = this.runLoop(agent, id, (instance, run) => instance.sendMessage(message, run), options.signal);
    return { conversationId: id };
  }

  /**
   * Forks the conversation at `body.step` (`./conversation-fork-service.ts` makes the new conversation from the record)
   * and continues the fork's loop live from there: the forked step again with its edited LLM output as the model's
   * answer, or the step after it. The forked conversation is not touched.
   */
  async fork(conversationId: string, body: ConversationForkBody, createdBy?: string): Promise<{ conversationId: string }> {
    if (this.stopping) throw new ServiceError("SERVICE_UNAVAILABLE", "The server is shutting down; fork the conversation again once it is back.");
    const { storage, catalog, workflows } = this.deps;
    const fork = await prepareFork({ storage, catalog, workflows }, conversationId, body);
    // The fork's agent is made for it alone (no message can reach a conversation this new), with the profile version it runs.
    const agent = await this.agentFor(fork.profile, fork.conversationId);
    agent.startedBy = createdBy;
    const llmOutput = body.llmOutput;
    agent.loop = this.runLoop(agent, fork.conversationId, (instance, run) => instance.resume(llmOutput === undefined ? run : { ...run, llm: givenFirstAnswer(llmOutput) }));
    return { conversationId: fork.conversationId };
  }

  /**
   * Continues a conversation waiting on its `ask_approval` call at `step` with the decision (the approvals' resumer,
   * from their sweep or a decision, on any process): true once its loop is under way, false when it no longer waits on
   * that step. Nothing was held while it waited: the agent is made again from the stored session when not in memory.
   */
  async continueAfterApproval(decided: { conversationId: string; agentId: string; step: number; outcome: ApprovalOutcome }): Promise<boolean> {
    if (this.stopping) throw new ServiceError("SERVICE_UNAVAILABLE", "The server is shutting down; the decision is handed on after the restart.");
    const { conversationId: id, step, outcome } = decided;
    const profile = (await this.deps.storage.agents.get(decided.agentId))?.document;
    if (!profile) {
      this.deps.log.warn("an approval was decided for an agent that no longer exists", { conversationId: id, agentId: decided.agentId });
      return false;
    }
    let making = this.making.get(id);
    if (!making) {
      making = this.agentFor(profile, id).finally(() => this.making.delete(id));
      this.making.set(id, making);
    }
    const agent = await making;
    if (agent.loop) throw busyError(profile.id, id);
    if (agent.instance.pendingApproval?.step !== step) return false;
    agent.startedBy = undefined;
    agent.loop = this.runLoop(agent, id, (instance, run) => instance.answerApproval(step, outcome, run));
    return true;
  }

  /** Resolves when the loop running in the conversation (if any) has ended and its events are flushed. */
  async loopEnded(conversationId: string): Promise<void> {
    await this.live.get(conversationId)?.loop;
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
    const approvals = this.deps.approvals;
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
      ...(approvals ? { approvals: true, onApprovalAsked: (ask: { step: number; request: ApprovalRequest }) => approvals.ask({ conversationId, agentId: profile.id, ...ask }) } : {}),
      stateStore: storage.agentSessions,
      onEvent: (event) => void journal.append(conversationId, event),
      onRunEvent: this.runEventSink(conversationId, recorder),
      logger: this.deps.log,
    });
    if (!created.ok) {
      journal.close(conversationId);
      throw cannotRun(profile, created.error);
    }
    agent = { instance: created.value, profileRevision: profile.revision };
    this.live.set(conversationId, agent);
    this.evictIdle(conversationId);
    return agent;
  }

  private runEventSink(conversationId: string, recorder: ExternalRunRecorder): ExternalRunRecorder["onEvent"] {
    const started = this.deps.onRunStarted;
    if (!started) return recorder.onEvent;
    return (event) => {
      if (event.type === "run.started") started(conversationId, event.streamId);
      recorder.onEvent(event);
    };
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

  private async runLoop(
    agent: LiveAgent,
    conversationId: string,
    start: (instance: AgentInstance, options: AgentRunOptions) => Promise<AgentResult<AgentRunResult>>,
    signal?: AbortSignal,
  ): Promise<void> {
    const stop = (agent.stop = new AbortController());
    const stopped = signal ? AbortSignal.any([stop.signal, signal]) : stop.signal;
    try {
      const outcome = await start(agent.instance, { ...(agent.startedBy !== undefined ? { userId: agent.startedBy } : {}), signal: stopped });
      if (!outcome.ok) {
        this.deps.log.error("agent loop did not start", { conversationId, code: outcome.error.code, error: outcome.error.message });
        return;
      }
      await this.deps.storage.agentSteps.save(conversationId, outcome.value.steps);
    } catch (error) {
      this.deps.log.error("agent loop failed", { conversationId, error: messageOf(error) });
    } finally {
      agent.loop = undefined;
      agent.stop = undefined;
      await this.deps.journal.flush().catch(() => undefined);
      if (this.deps.keepIdle === false && this.live.get(conversationId) === agent) {
        agent.instance.dispose();
        this.live.delete(conversationId);
        this.deps.journal.close(conversationId);
      }
    }
  }

  /** The state of the conversation's agent while this process has it in memory. */
  liveState(conversationId: string): AgentConversationState | undefined {
    const live = this.live.get(conversationId);
    if (!live) return undefined;
    const question = live.instance.pendingQuestion;
    return { status: live.instance.status, running: live.loop !== undefined, ...(question ? { pendingQuestion: question } : {}), pendingPermissions: live.instance.pendingPermissions() };
  }

  /**
   * Closes a loop its process never finished (a queue-mode worker killed mid-loop): the session says
   * `failed` with `reason`, and an `agent.finished` event tells subscribers — unless the loop had ended
   * (its session saved with a final status after `since`, when the message was sent). The loop is not
   * run again: its tool calls would be repeated unasked.
   */
  async closeInterrupted(agentId: string, conversationId: string, reason: string, since: number): Promise<void> {
    const { storage } = this.deps;
    const session = await storage.agentSessions.load(conversationId);
    if (session && session.status !== "running" && session.status !== "waiting_permission" && session.updatedAt >= since) return;
    if (session) {
      // The killed loop had taken the message (an answer to a pending question, too): the next message is a new one.
      const { pendingQuestion: _answered, ...rest } = session;
      await storage.agentSessions.save({ ...rest, status: "failed", reason, updatedAt: Date.now() });
    } else {
      // Killed in its first step, before anything was saved: a session of its own says what happened, as AgentInstance would start it.
      const [profile, messages, lastSeq] = await Promise.all([storage.agents.get(agentId), storage.conversations.messages(conversationId), storage.events.lastSeq(conversationId)]);
      const steps = Math.max(0, ...messages.map((m) => (m.role === "assistant" && m.agentStep ? m.agentStep.step : 0)));
      const privateState = profile?.document.initialPrivateState ?? {};
      await storage.agentSessions.save({ agentId, conversationId, status: "failed", reason, steps, nextEventSeq: lastSeq + 1, privateState, updatedAt: Date.now() });
    }
    await this.reportFailure(session?.agentId ?? agentId, conversationId, reason);
  }

  /** Tells the conversation's subscribers that a loop failed without one running to say so (`agent.finished`, `failed`). */
  async reportFailure(agentId: string, conversationId: string, reason: string): Promise<void> {
    const { journal } = this.deps;
    const fresh = !this.live.has(conversationId);
    await journal.open(conversationId);
    journal.append(conversationId, { type: "agent.finished", agentId, status: "failed", text: reason });
    await journal.flush();
    if (fresh) journal.close(conversationId);
  }

  async conversation(conversationId: string): Promise<ConversationView> {
    // The loop's state before its messages: a loop appends its messages before it says it has finished, so a
    // finished state never comes with a log that lacks its last answer (read the other way round, it could).
    const live = this.liveState(conversationId);
    const { view, session } = await storedConversation(this.deps.storage, conversationId);
    const agent = live ?? (session ? storedAgentState(session) : undefined);
    return { ...view, ...(agent ? { agent } : {}) };
  }

  async listConversations(agentId: string, limit: number): Promise<Conversation[]> {
    return listAgentConversations(this.deps.storage, agentId, limit);
  }

  async cancel(conversationId: string): Promise<void> {
    const live = this.live.get(conversationId);
    if (live?.loop) {
      live.stop?.abort();
      live.instance.cancel();
      return;
    }
    if (!live && !(await this.deps.storage.conversations.get(conversationId))) throw notFound("conversation", conversationId);
    const session = live ? undefined : await this.deps.storage.agentSessions.load(conversationId);
    if (live?.instance.pendingApproval || session?.pendingQuestion?.approval) await this.withdrawApproval(conversationId, live?.instance.agentId ?? session?.agentId ?? "");
  }

  /**
   * Cancels a conversation that waits for an approval (no loop runs then): the approval is closed first, so a decision
   * racing the cancel is refused, then the agent stops waiting (`cancelled`; the next message is a new one).
   */
  private async withdrawApproval(conversationId: string, agentId: string): Promise<void> {
    await this.deps.approvals?.close(conversationId);
    const profile = (await this.deps.storage.agents.get(agentId))?.document;
    if (!profile) return;
    let making = this.making.get(conversationId);
    if (!making) {
      making = this.agentFor(profile, conversationId).finally(() => this.making.delete(conversationId));
      this.making.set(conversationId, making);
    }
    const agent = await making;
    // A decision recorded before the close continues the loop: cancel that loop instead.
    if (agent.loop) {
      agent.stop?.abort();
      agent.instance.cancel();
      return;
    }
    await agent.instance.withdrawApproval("The conversation was cancelled while it waited for an approval; the approval was closed.");
    await this.deps.journal.flush();
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
      for (const agent of this.live.values()) {
        agent.stop?.abort();
        agent.instance.cancel();
      }
      await Promise.all(loops());
    }
    for (const agent of this.live.values()) agent.instance.dispose();
    this.live.clear();
  }
}
